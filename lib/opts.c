/* SPDX-License-Identifier: Apache-2.0 */
/* Options that can grow without an ABI break: every options struct is
 * given with its size (the caller's sizeof), which the library checks. A
 * size below the smallest released struct is refused; a larger one (a
 * program built against newer headers) is taken when every byte this
 * library does not know is 0, the default of every field added later. The
 * sized calls then go on as the 0.x calls do, which read only the fields
 * this library knows. */
#include <string.h>

#include "session.h"
#include "unsized.h"
#include "zkcoord/async.h"
#include "zkcoord/client.h"
#include "zkcoord/latch.h"
#include "zkcoord/selector.h"
#include "zkcoord/semaphore.h"

/* ZKC_OK when `size` is one a caller may give for a struct of which this
 * library knows `known` bytes (at least `min`), and, when opts is not NULL
 * and size is larger, the bytes beyond `known` are 0; else refuses it
 * (ZKC_EINVAL), naming the function, the type and why. */
static int check_size(zkc_client_t *c, const char *fn, const char *type,
                      const void *opts, size_t size, size_t min, size_t known) {
  if (size < min)
    return zkc__refuse(c, ZKC_EINVAL,
                       "%s: options size %zu is smaller than a %s (%zu bytes in "
                       "zkcoord %s): pass sizeof(%s)",
                       fn, size, type, known, zkc_version_string(), type);
  if (opts != NULL && size > known) {
    const unsigned char *tail = (const unsigned char *)opts + known;
    for (size_t i = 0; i < size - known; i++)
      if (tail[i] != 0)
        return zkc__refuse(c, ZKC_EINVAL,
                           "%s: options size %zu: the %s sets fields beyond "
                           "the %zu bytes zkcoord %s knows (built against "
                           "newer headers?)",
                           fn, size, type, known, zkc_version_string());
  }
  return ZKC_OK;
}

/* One options struct as the sized calls see it: the names their refusals
 * give, the smallest size a release took (1.0.0, the first with sized
 * calls: fields are only ever appended, so any later size is larger), the
 * size this library knows and its defaults (what the 0.x init gives). */
struct sized_opts {
  const char *init_fn;
  const char *create_fn;
  const char *type;
  size_t min;
  size_t known;
  void (*defaults)(void *opts);
};

/* Room for the defaults of any of the structs below. */
union any_opts {
  zkc_client_opts_t client;
  zkc_latch_opts_t latch;
  zkc_sem_opts_t sem;
  zkc_selector_opts_t selector;
  zkc_async_opts_t async;
};

/* The sized init of every options struct: fills the caller's `size` bytes
 * with the defaults this library knows, zeros beyond, once its size is one
 * to take. */
static int opts_init_size_impl(const struct sized_opts *k, void *opts,
                               size_t size) {
  int rc = zkc__refuse_null(NULL, k->init_fn, "opts", opts == NULL,
                            (char *)NULL);
  if (rc == ZKC_OK)
    rc = check_size(NULL, k->init_fn, k->type, NULL, size, k->min, k->known);
  if (rc != ZKC_OK) return rc;
  union any_opts d;
  k->defaults(&d);
  memcpy(opts, &d, size < k->known ? size : k->known);
  if (size > k->known) memset((char *)opts + k->known, 0, size - k->known);
  return ZKC_OK;
}

/* The caller's options of a sized create as this library reads them, into
 * `own` (`k->known` bytes): its `size` bytes over the defaults, so a
 * smaller struct of an older release reads the defaults of the fields it
 * lacks. NULL options stay NULL (the recipe's defaults) whatever the size. */
static int opts_read(zkc_client_t *c, const struct sized_opts *k,
                     const void *opts, size_t size, void *own) {
  if (opts == NULL) return ZKC_OK;
  int rc = check_size(c, k->create_fn, k->type, opts, size, k->min, k->known);
  if (rc != ZKC_OK) return rc;
  k->defaults(own);
  memcpy(own, opts, size < k->known ? size : k->known);
  return ZKC_OK;
}

/* The defaults of each struct through one signature for the table. */
static void client_defaults(void *o) { zkc__client_opts_defaults(o); }
static void latch_defaults(void *o) { zkc__latch_opts_defaults(o); }
static void sem_defaults(void *o) { zkc__sem_opts_defaults(o); }
static void selector_defaults(void *o) { zkc__selector_opts_defaults(o); }
static void async_defaults(void *o) { zkc__async_opts_defaults(o); }

/* Every minimum is the 1.0.0 size, all a release has taken so far. */
static const struct sized_opts CLIENT_OPTS = {
    "zkc_client_opts_init_size", "zkc_client_open_size", "zkc_client_opts_t",
    sizeof(zkc_client_opts_t), sizeof(zkc_client_opts_t), client_defaults};
static const struct sized_opts LATCH_OPTS = {
    "zkc_latch_opts_init_size", "zkc_latch_create_size", "zkc_latch_opts_t",
    sizeof(zkc_latch_opts_t), sizeof(zkc_latch_opts_t), latch_defaults};
static const struct sized_opts SEM_OPTS = {
    "zkc_sem_opts_init_size", "zkc_sem_create_size", "zkc_sem_opts_t",
    sizeof(zkc_sem_opts_t), sizeof(zkc_sem_opts_t), sem_defaults};
static const struct sized_opts SELECTOR_OPTS = {
    "zkc_selector_opts_init_size", "zkc_selector_create_size",
    "zkc_selector_opts_t", sizeof(zkc_selector_opts_t),
    sizeof(zkc_selector_opts_t), selector_defaults};
static const struct sized_opts ASYNC_OPTS = {
    "zkc_async_opts_init_size", "zkc_async_create_size", "zkc_async_opts_t",
    sizeof(zkc_async_opts_t), sizeof(zkc_async_opts_t), async_defaults};

/* ---- client ---- */

int zkc_client_opts_init_size(zkc_client_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           opts_init_size_impl(&CLIENT_OPTS, opts, size));
}

static int client_open_size_impl(zkc_client_t **out, const char *connect_string,
                                 const zkc_client_opts_t *opts,
                                 size_t opts_size) {
  if (out != NULL) *out = NULL;
  zkc_client_opts_t o;
  int rc = opts_read(NULL, &CLIENT_OPTS, opts, opts_size, &o);
  return rc != ZKC_OK ? rc
                      : zkc__client_open(out, connect_string, opts ? &o : NULL);
}

int zkc_client_open_size(zkc_client_t **out, const char *connect_string,
                         const zkc_client_opts_t *opts, size_t opts_size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_open_size_impl(out, connect_string, opts,
                                                 opts_size));
}

/* ---- leader latch ---- */

int zkc_latch_opts_init_size(zkc_latch_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           opts_init_size_impl(&LATCH_OPTS, opts, size));
}

static int latch_create_size_impl(zkc_latch_t **out, zkc_client_t *client,
                                  const char *path, const char *id,
                                  const zkc_latch_opts_t *opts,
                                  size_t opts_size) {
  if (out != NULL) *out = NULL;
  zkc_latch_opts_t o;
  int rc = opts_read(client, &LATCH_OPTS, opts, opts_size, &o);
  return rc != ZKC_OK
             ? rc
             : zkc__latch_create(out, client, path, id, opts ? &o : NULL);
}

int zkc_latch_create_size(zkc_latch_t **out, zkc_client_t *client,
                          const char *path, const char *id,
                          const zkc_latch_opts_t *opts, size_t opts_size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           latch_create_size_impl(out, client, path, id, opts,
                                                  opts_size));
}

/* ---- semaphore ---- */

int zkc_sem_opts_init_size(zkc_sem_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           opts_init_size_impl(&SEM_OPTS, opts, size));
}

static int sem_create_size_impl(zkc_sem_t **out, zkc_client_t *client,
                                const char *path, const zkc_sem_opts_t *opts,
                                size_t opts_size) {
  if (out != NULL) *out = NULL;
  zkc_sem_opts_t o;
  int rc = opts_read(client, &SEM_OPTS, opts, opts_size, &o);
  return rc != ZKC_OK ? rc
                      : zkc__sem_create(out, client, path, opts ? &o : NULL);
}

int zkc_sem_create_size(zkc_sem_t **out, zkc_client_t *client,
                        const char *path, const zkc_sem_opts_t *opts,
                        size_t opts_size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           sem_create_size_impl(out, client, path, opts,
                                                opts_size));
}

/* ---- leader selector ---- */

int zkc_selector_opts_init_size(zkc_selector_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           opts_init_size_impl(&SELECTOR_OPTS, opts, size));
}

static int selector_create_size_impl(zkc_selector_t **out, zkc_client_t *client,
                                     const char *path,
                                     zkc_selector_fn take_leadership, void *ctx,
                                     const zkc_selector_opts_t *opts,
                                     size_t opts_size) {
  if (out != NULL) *out = NULL;
  zkc_selector_opts_t o;
  int rc = opts_read(client, &SELECTOR_OPTS, opts, opts_size, &o);
  return rc != ZKC_OK ? rc
                      : zkc__selector_create(out, client, path, take_leadership,
                                             ctx, opts ? &o : NULL);
}

int zkc_selector_create_size(zkc_selector_t **out, zkc_client_t *client,
                             const char *path, zkc_selector_fn take_leadership,
                             void *ctx, const zkc_selector_opts_t *opts,
                             size_t opts_size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           selector_create_size_impl(out, client, path,
                                                     take_leadership, ctx, opts,
                                                     opts_size));
}

/* ---- async context ---- */

int zkc_async_opts_init_size(zkc_async_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           opts_init_size_impl(&ASYNC_OPTS, opts, size));
}

static int async_create_size_impl(zkc_async_t **out, zkc_client_t *client,
                                  const zkc_async_opts_t *opts,
                                  size_t opts_size) {
  if (out != NULL) *out = NULL;
  zkc_async_opts_t o;
  int rc = opts_read(client, &ASYNC_OPTS, opts, opts_size, &o);
  return rc != ZKC_OK ? rc : zkc__async_create(out, client, opts ? &o : NULL);
}

int zkc_async_create_size(zkc_async_t **out, zkc_client_t *client,
                          const zkc_async_opts_t *opts, size_t opts_size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           async_create_size_impl(out, client, opts,
                                                  opts_size));
}
