/* SPDX-License-Identifier: Apache-2.0 */
/* The API's conventions toward 1.0 (docs/api.md, "Conventions"), on the
 * real ensemble: every call that hands back a list hands back a zkc_list_t,
 * read with zkc_list_count / zkc_list_string / zkc_list_contender and freed
 * with zkc_list_free, listing what its 0.x form listed; options structs are
 * given with their size (zkc_*_opts_init_size, zkc_*_create_size), checked
 * by the library. One CTest entry per case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define OK(expr) assert_int_equal((expr), ZKC_OK)

/* The message of the thread's last failure starts with `fn: `. */
static void assert_message_names(const char *fn) {
  const char *msg = zkc_last_error_message();
  size_t n = strlen(fn);
  if (strncmp(msg, fn, n) != 0 || strncmp(msg + n, ": ", 2) != 0)
    fail_msg("the message '%s' does not name %s", msg, fn);
}

static void mutex_node_list_is_the_queue(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, path));
  zkc_list_t *l = NULL;
  OK(zkc_mutex_node_list(m, &l)); /* no path yet: an empty list */
  assert_non_null(l);
  assert_int_equal(zkc_list_count(l), 0);
  assert_null(zkc_list_string(l, 0));
  zkc_list_free(l);

  OK(zkc_mutex_acquire(m));
  char node[1100];
  OK(zkt_hold_node(zkc_mutex_hold(m), node, sizeof node));
  OK(zkc_mutex_node_list(m, &l));
  assert_int_equal(zkc_list_count(l), 1);
  assert_string_equal(zkc_list_string(l, 0), node);
  assert_null(zkc_list_string(l, 1));
  assert_null(zkc_list_contender(l, 0)); /* paths only */
  zkc_list_free(l);

  l = (zkc_list_t *)1;
  assert_int_equal(zkc_mutex_node_list(NULL, &l), ZKC_EINVAL);
  assert_null(l);
  assert_message_names("zkc_mutex_node_list");
  assert_int_equal(zkc_mutex_node_list(m, NULL), ZKC_EINVAL);
  assert_message_names("zkc_mutex_node_list");
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

static void lease_hold_node_list_is_its_nodes(void **state) {
  (void)state;
  const char *path = zkt_path("sem");
  zkc_client_t *c = zkt_open(NULL);
  zkc_sem_opts_t o;
  zkc_sem_opts_init(&o);
  o.max_leases = 3;
  zkc_sem_t *sem;
  OK(zkc_sem_create(&sem, c, path, &o));
  zkc_lease_t *lease;
  OK(zkc_sem_acquire(sem, 2, zkt_ms(10000), &lease));
  zkc_list_t *l = NULL;
  OK(zkc_hold_node_list(zkc_lease_hold(lease), &l));
  assert_int_equal(zkc_list_count(l), 2);
  char prefix[1100];
  snprintf(prefix, sizeof prefix, "%s/leases/", path);
  for (size_t i = 0; i < 2; i++)
    assert_memory_equal(zkc_list_string(l, i), prefix, strlen(prefix));
  assert_null(zkc_list_contender(l, 0));

  /* The lease's leases in the semaphore's status, and no one queued. */
  zkc_list_t *leases = NULL, *queue = NULL;
  OK(zkc_sem_contender_list(c, path, &leases, &queue));
  assert_int_equal(zkc_list_count(leases), 2);
  assert_int_equal(zkc_list_count(queue), 0);
  for (size_t i = 0; i < 2; i++) {
    const zkc_contender_t *ct = zkc_list_contender(leases, i);
    assert_non_null(ct);
    assert_string_equal(zkc_list_string(leases, i), ct->name);
    assert_string_equal(zkc_list_string(l, i) + strlen(prefix), ct->name);
  }
  zkc_list_free(leases);
  zkc_list_free(queue);
  zkc_list_free(l);

  assert_int_equal(zkc_sem_contender_list(c, path, &leases, NULL), ZKC_EINVAL);
  assert_null(leases);
  assert_message_names("zkc_sem_contender_list");
  assert_int_equal(zkc_sem_contender_list(c, "sem", &leases, &queue),
                   ZKC_EINVAL);
  assert_message_names("zkc_sem_contender_list");
  OK(zkc_lease_release(lease));
  l = (zkc_list_t *)1;
  assert_int_equal(zkc_hold_node_list(zkc_lease_hold(lease), &l), ZKC_ENOTOWNER);
  assert_null(l);
  assert_message_names("zkc_hold_node_list");
  assert_int_equal(zkc_hold_node_list(zkc_lease_hold(NULL), &l), ZKC_EINVAL);
  assert_message_names("zkc_hold_node_list");
  OK(zkc_lease_free(lease));
  OK(zkc_sem_destroy(sem));
  zkc_client_close(c);
}

static void latch_participant_list_leader_first(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkc_client_t *c = zkt_open(NULL);
  zkc_latch_t *a, *b;
  OK(zkc_latch_create(&a, c, path, "first", NULL));
  OK(zkc_latch_create(&b, c, path, "second", NULL));
  OK(zkc_latch_start(a));
  OK(zkc_latch_await(a, zkt_ms(10000)));
  OK(zkc_latch_start(b));
  assert_true(zkt_await_children_exactly(path, 2, zkt_ms(10000)));
  zkc_list_t *l = NULL;
  OK(zkc_latch_participant_list(b, &l));
  assert_int_equal(zkc_list_count(l), 2);
  assert_string_equal(zkc_list_string(l, 0), "first"); /* the leader */
  assert_string_equal(zkc_list_string(l, 1), "second");
  assert_null(zkc_list_contender(l, 1));
  zkc_list_free(l);
  assert_int_equal(zkc_latch_participant_list(NULL, &l), ZKC_EINVAL);
  assert_message_names("zkc_latch_participant_list");
  OK(zkc_latch_destroy(b));
  OK(zkc_latch_destroy(a));
  zkc_client_close(c);
}

static void take_nothing(void *ctx, zkc_selector_t *sel) {
  (void)ctx;
  (void)sel;
}

static void selector_participant_list_reads_ids(void **state) {
  (void)state;
  const char *path = zkt_path("election");
  zkc_client_opts_t co;
  zkc_client_opts_init(&co);
  co.holder_id = "the-holder";
  zkc_client_t *c = zkt_open(&co);
  zkc_selector_t *sel;
  OK(zkc_selector_create(&sel, c, path, take_nothing, NULL, NULL));
  zkc_list_t *l = NULL;
  OK(zkc_selector_participant_list(sel, &l));
  assert_int_equal(zkc_list_count(l), 0);
  zkc_list_free(l);
  /* A lock node on the path is a participant (Curator's LeaderSelector
   * is a mutex). */
  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_acquire(m));
  OK(zkc_selector_participant_list(sel, &l));
  assert_int_equal(zkc_list_count(l), 1);
  assert_string_equal(zkc_list_string(l, 0), "the-holder");
  zkc_list_free(l);
  assert_int_equal(zkc_selector_participant_list(sel, NULL), ZKC_EINVAL);
  assert_message_names("zkc_selector_participant_list");
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  OK(zkc_selector_destroy(sel));
  zkc_client_close(c);
}

static void lock_contender_list_has_records(void **state) {
  (void)state;
  const char *path = zkt_path("lock");
  zkc_client_t *c = zkt_open(NULL);
  zkc_list_t *l = NULL;
  OK(zkc_lock_contender_list(c, path, &l)); /* no such path */
  assert_non_null(l);
  assert_int_equal(zkc_list_count(l), 0);
  assert_null(zkc_list_contender(l, 0));
  zkc_list_free(l);

  zkc_mutex_t *m;
  OK(zkc_mutex_create(&m, c, path));
  OK(zkc_mutex_acquire(m));
  int64_t token;
  OK(zkc_hold_fencing_token(zkc_mutex_hold(m), &token));
  OK(zkc_lock_contender_list(c, path, &l));
  assert_int_equal(zkc_list_count(l), 1);
  const zkc_contender_t *ct = zkc_list_contender(l, 0);
  assert_non_null(ct);
  assert_int_equal(ct->position, 0);
  assert_int_equal(ct->czxid, token);
  assert_string_equal(zkc_list_string(l, 0), ct->name);
  assert_int_equal(zkc_contender_layout(ct) & ZKC_LAYOUT_MUTEX,
                   ZKC_LAYOUT_MUTEX);
  zkc_list_free(l);

  assert_int_equal(zkc_lock_contender_list(NULL, path, &l), ZKC_EINVAL);
  assert_message_names("zkc_lock_contender_list");
  assert_int_equal(zkc_lock_contender_list(c, "lock", &l), ZKC_EINVAL);
  assert_null(l);
  assert_message_names("zkc_lock_contender_list");
  /* Reading a NULL list is an empty list. */
  assert_int_equal(zkc_list_count(NULL), 0);
  assert_null(zkc_list_string(NULL, 0));
  assert_null(zkc_list_contender(NULL, 0));
  zkc_list_free(NULL);
  OK(zkc_mutex_release(m));
  OK(zkc_mutex_destroy(m));
  zkc_client_close(c);
}

/* ---- options given with their size ---- */

/* The message of the last failure names `fn` and says "options size". */
static void assert_size_refused(const char *fn) {
  assert_message_names(fn);
  if (strstr(zkc_last_error_message(), "options size") == NULL)
    fail_msg("the message '%s' does not say what was wrong",
             zkc_last_error_message());
}

/* Each sized init fills what its 0.x init fills, zeroes bytes beyond the
 * struct, and refuses a size below the struct's without writing. */
#define CHECK_INIT(kind, type)                                              \
  do {                                                                      \
    type plain;                                                             \
    memset(&plain, 0, sizeof plain);                                        \
    zkc_##kind##_opts_init(&plain);                                         \
    struct {                                                                \
      type o;                                                               \
      unsigned char beyond[16];                                             \
    } big;                                                                  \
    memset(&big, 0xA5, sizeof big);                                         \
    OK(zkc_##kind##_opts_init_size(&big.o, sizeof big.o));                  \
    assert_memory_equal(&big.o, &plain, sizeof plain);                      \
    assert_int_equal(big.beyond[0], 0xA5);                                  \
    OK(zkc_##kind##_opts_init_size(&big.o, sizeof big));                    \
    assert_memory_equal(&big.o, &plain, sizeof plain);                      \
    for (size_t i = 0; i < sizeof big.beyond; i++)                          \
      assert_int_equal(big.beyond[i], 0);                                   \
    memset(&big, 0xA5, sizeof big);                                         \
    assert_int_equal(zkc_##kind##_opts_init_size(&big.o, sizeof big.o - 1), \
                     ZKC_EINVAL);                                           \
    assert_size_refused("zkc_" #kind "_opts_init_size");                    \
    assert_int_equal(((unsigned char *)&big.o)[0], 0xA5);                   \
    assert_int_equal(zkc_##kind##_opts_init_size(NULL, sizeof big.o),       \
                     ZKC_EINVAL);                                           \
    assert_message_names("zkc_" #kind "_opts_init_size");                   \
  } while (0)

/* Padding aside, the structs are compared whole: make the 0.x init and the
 * sized one start from the same bytes. */
static void sized_inits_fill_the_defaults(void **state) {
  (void)state;
  CHECK_INIT(client, zkc_client_opts_t);
  CHECK_INIT(latch, zkc_latch_opts_t);
  CHECK_INIT(sem, zkc_sem_opts_t);
  CHECK_INIT(selector, zkc_selector_opts_t);
  CHECK_INIT(async, zkc_async_opts_t);
}

static void lead_nothing(void *ctx, zkc_selector_t *sel) {
  (void)ctx;
  (void)sel;
}

/* Every sized create takes its struct at its size, or larger with zeros
 * beyond (a program built against newer headers that sets no new field),
 * and refuses a smaller size, or a byte beyond set, with ZKC_EINVAL, *out
 * NULL and a message naming the call and the size. */
static void sized_creates_check_the_size(void **state) {
  (void)state;
  const char *path = zkt_path("sized");
  char path_sem[1100], path_lock[1100];
  snprintf(path_sem, sizeof path_sem, "%s-sem", path);
  snprintf(path_lock, sizeof path_lock, "%s-lock", path);

  /* client */
  struct {
    zkc_client_opts_t o;
    unsigned char beyond[8];
  } co;
  OK(zkc_client_opts_init_size(&co.o, sizeof co));
  co.o.holder_id = "sized-client";
  zkc_client_t *c = (zkc_client_t *)1;
  assert_int_equal(zkc_client_open_size(&c, zkt_connect(), &co.o,
                                        sizeof co.o - 8),
                   ZKC_EINVAL);
  assert_null(c);
  assert_size_refused("zkc_client_open_size");
  co.beyond[3] = 1;
  assert_int_equal(zkc_client_open_size(&c, zkt_connect(), &co.o, sizeof co),
                   ZKC_EINVAL);
  assert_size_refused("zkc_client_open_size");
  co.beyond[3] = 0;
  OK(zkc_client_open_size(&c, zkt_connect(), &co.o, sizeof co));
  zkc_client_close(c);
  OK(zkc_client_open_size(&c, zkt_connect(), &co.o, sizeof co.o));

  /* latch: opts_size checked, then the latch works */
  zkc_latch_opts_t lo;
  OK(zkc_latch_opts_init_size(&lo, sizeof lo));
  zkc_latch_t *l = (zkc_latch_t *)1;
  assert_int_equal(zkc_latch_create_size(&l, c, path, "x", &lo, 0), ZKC_EINVAL);
  assert_null(l);
  assert_size_refused("zkc_latch_create_size");
  OK(zkc_latch_create_size(&l, c, path, "x", &lo, sizeof lo));
  OK(zkc_latch_start(l));
  OK(zkc_latch_await(l, zkt_ms(10000)));
  OK(zkc_latch_destroy(l));
  OK(zkc_latch_create_size(&l, c, path, NULL, NULL, 0)); /* NULL: defaults */
  OK(zkc_latch_destroy(l));

  /* semaphore: the options' values are the ones used */
  zkc_sem_opts_t so;
  OK(zkc_sem_opts_init_size(&so, sizeof so));
  so.max_leases = 2;
  zkc_sem_t *sem = (zkc_sem_t *)1;
  assert_int_equal(zkc_sem_create_size(&sem, c, path_sem, &so, sizeof so - 1),
                   ZKC_EINVAL);
  assert_null(sem);
  assert_size_refused("zkc_sem_create_size");
  OK(zkc_sem_create_size(&sem, c, path_sem, &so, sizeof so));
  zkc_lease_t *lease;
  OK(zkc_sem_acquire(sem, 2, zkt_ms(10000), &lease)); /* 2 fit: max_leases 2 */
  OK(zkc_lease_release(lease));
  OK(zkc_lease_free(lease));
  OK(zkc_sem_destroy(sem));

  /* selector */
  zkc_selector_opts_t sl;
  OK(zkc_selector_opts_init_size(&sl, sizeof sl));
  sl.id = "sized-selector";
  zkc_selector_t *sel = (zkc_selector_t *)1;
  assert_int_equal(zkc_selector_create_size(&sel, c, path_lock, lead_nothing,
                                            NULL, &sl, sizeof sl / 2),
                   ZKC_EINVAL);
  assert_null(sel);
  assert_size_refused("zkc_selector_create_size");
  OK(zkc_selector_create_size(&sel, c, path_lock, lead_nothing, NULL, &sl,
                              sizeof sl));
  assert_string_equal(zkc_selector_id(sel), "sized-selector");
  OK(zkc_selector_destroy(sel));

  /* async context */
  struct {
    zkc_async_opts_t o;
    unsigned char beyond[8];
  } ao;
  OK(zkc_async_opts_init_size(&ao.o, sizeof ao));
  zkc_async_t *as = (zkc_async_t *)1;
  ao.beyond[7] = 9;
  assert_int_equal(zkc_async_create_size(&as, c, &ao.o, sizeof ao), ZKC_EINVAL);
  assert_null(as);
  assert_size_refused("zkc_async_create_size");
  assert_int_equal(zkc_async_create_size(&as, c, &ao.o, 1), ZKC_EINVAL);
  assert_size_refused("zkc_async_create_size");
  ao.beyond[7] = 0;
  OK(zkc_async_create_size(&as, c, &ao.o, sizeof ao));
  OK(zkc_async_destroy(as));
  zkc_client_close(c);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(mutex_node_list_is_the_queue),
      cmocka_unit_test(lease_hold_node_list_is_its_nodes),
      cmocka_unit_test(latch_participant_list_leader_first),
      cmocka_unit_test(selector_participant_list_reads_ids),
      cmocka_unit_test(lock_contender_list_has_records),
      cmocka_unit_test(sized_inits_fill_the_defaults),
      cmocka_unit_test(sized_creates_check_the_size),
  };
  return zkt_main(argc, argv, tests, sizeof tests / sizeof *tests,
                  "api_conventions");
}
