/* SPDX-License-Identifier: Apache-2.0 */
/* zkcoord revoke: asks the current holder(s) of a lock path to let go, with
 * Curator's revocation marker (zkc_revoke), then waits a bounded time for
 * them to do so and says whether they did.
 *
 * Who can be asked: a revocable hold's node has empty data (Curator's
 * makeRevocable creates it so, as do zkc_mutex_set_revocable and
 * `zkcoord lock --revocable`), and the marker is the only data it ever
 * gets. A node that carries data (a holder id) belongs to a hold that was
 * not made revocable: nobody would act on the marker, and writing it would
 * only overwrite the id that `status` shows. Such a holder is not written
 * to; revoke says so and exits ZKCLI_EXIT_NOT_HONOURED at once.
 *
 * A path another recipe uses (a leader election, a semaphore) is refused:
 * the marker would overwrite a participant id and ask nobody. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* How often the asked nodes are looked for while revoke waits. */
#define POLL_MS 100

static int is_read(const zkc_contender_t *e) {
  return e->kind != NULL && strcmp(e->kind, "read") == 0;
}

/* How many of the sorted contenders hold the lock, as zkc_revoke_holders
 * counts them: the first, with any node of the same sequence; when those
 * are all readers, every reader up to the first node that is not one. */
static size_t holders(const zkc_contender_t *v, size_t n) {
  if (n == 0 || !v[0].has_sequence) return 0;
  size_t k = 1;
  int readers = is_read(&v[0]);
  while (k < n && v[k].has_sequence && v[k].sequence == v[0].sequence) {
    readers &= is_read(&v[k]);
    k++;
  }
  while (readers && k < n && v[k].has_sequence && is_read(&v[k])) k++;
  return k;
}

/* A node a revocable hold made: empty, or already carrying the marker (a
 * request before this one). A node whose data this client may not read
 * cannot be told apart: it is asked, as Curator's Revoker would. */
static int maybe_revocable(const zkc_contender_t *e) {
  return e->data_denied || e->data_total == 0 || zkcli_is_revoke_marker(e);
}

/* 1 while the node `name` is still among the children read. */
static int still_there(const zkc_contender_t *v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i].name, name) == 0) return 1;
  return 0;
}

/* Waits until none of the asked nodes is left, or until `deadline`.
 * Returns how many are left (*rc: the last read's code: a read cut off by
 * a lost connection is tried again until the deadline). */
static size_t await_let_go(zkc_client_t *c, const char *path, char **asked,
                           size_t n_asked, int64_t deadline, int *rc) {
  const struct timespec nap = {0, POLL_MS * 1000 * 1000};
  size_t left = n_asked;
  for (;;) {
    zkc_contender_t *v = NULL;
    size_t n = 0;
    *rc = zkcli_lock_contenders(c, path, &v, &n);
    if (*rc == ZKC_OK) {
      left = 0;
      for (size_t i = 0; i < n_asked; i++) left += still_there(v, n, asked[i]);
      zkcli_contenders_free(v, n);
      if (left == 0) return 0;
    } else if (*rc != ZKC_ECONNLOSS && *rc != ZKC_EOPTIMEOUT) {
      return left;
    }
    if (zkcli_now_ms() >= deadline) return left;
    nanosleep(&nap, NULL);
  }
}

/* "<path>/<name>" into buf. */
static const char *node_path(const char *path, const char *name, char *buf,
                             size_t len) {
  snprintf(buf, len, "%s/%s", path, name);
  return buf;
}

int zkcli_cmd_revoke(const zkcli_opts_t *o) {
  zkc_client_t *c;
  int code = zkcli_open(o, &c);
  if (code != 0) return code;
  int rc = zkcli_check_layout(o, c, NULL);
  if (rc == ZKCLI_EXIT_BADPATH) {
    zkc_client_close(c);
    return rc;
  }
  zkc_contender_t *v = NULL;
  size_t n = 0;
  if (rc == ZKC_OK) rc = zkcli_read_contenders(o, c, o->path, &v, &n);
  if (rc != ZKC_OK) {
    if (rc == ZKC_EINVAL) {
      zkcli_bad_path("lock path", o->path);
      code = ZKCLI_EXIT_BADPATH;
    } else {
      zkcli_err("cannot revoke %s: %s", o->path, zkc_strerror(rc));
      code = zkcli_exit_code(rc);
    }
    zkc_client_close(c);
    return code;
  }
  size_t nh = holders(v, n), n_asked = 0, refused = 0;
  char **asked = calloc(nh ? nh : 1, sizeof *asked);
  char node[2048];
  if (asked == NULL) rc = ZKC_ENOMEM;
  for (size_t i = 0; i < nh && rc == ZKC_OK; i++) {
    /* Only a lock node is asked: a persistent child (a queue's element, a
     * mistyped path's data) keeps its data. */
    if (v[i].ephemeral_owner == 0) continue;
    if (!maybe_revocable(&v[i])) {
      /* Not revocable: nobody would be told, and the marker would only
       * overwrite the holder's id. Said on stdout: it is the answer. */
      printf("%s: not asked: ", o->path);
      zkcli_print_holder(&v[i], 60);
      printf(" holds it without making its hold revocable (its node "
             "carries its id)\n");
      refused++;
      continue;
    }
    int w = zkc_revoke(c, node_path(o->path, v[i].name, node, sizeof node));
    if (w == ZKC_OK) {
      if ((asked[n_asked] = strdup(v[i].name)) == NULL) rc = ZKC_ENOMEM;
      else n_asked++;
    } else if (w != ZKC_ENONODE) { /* a holder that left needs nothing */
      rc = w;
    }
  }
  zkcli_contenders_free(v, n);
  if (rc == ZKC_OK) {
    if (n_asked > 0 || refused == 0)
      printf("%s: asked %zu holder%s to let go%s\n", o->path, n_asked,
             n_asked == 1 ? "" : "s", nh == 0 ? " (not held)" : "");
    /* As pkill: 1 when there was nobody to ask. */
    code = nh == 0 || (n_asked == 0 && refused == 0) ? ZKCLI_EXIT_CONFLICT : 0;
    if (refused > 0) code = ZKCLI_EXIT_NOT_HONOURED;
    /* An answer that cannot be given is not waited for. */
    if (zkcli_flush_stdout() != 0) code = ZKCLI_EXIT_IOERR;
    else if (n_asked > 0 && o->wait_ms != 0) {
      int64_t wait = o->wait_ms < 0 ? ZKCLI_REVOKE_WAIT_MS : o->wait_ms;
      int64_t deadline = o->started_ms + wait;
      int64_t asked_at = zkcli_now_ms();
      size_t left = await_let_go(c, o->path, asked, n_asked, deadline, &rc);
      if (left == 0) {
        printf("%s: %s let go after %.1f s\n", o->path,
               n_asked == 1 ? "the holder" : "the holders",
               (double)(zkcli_now_ms() - asked_at) / 1000.0);
      } else if (rc == ZKC_OK) {
        printf("%s: %zu of %zu holder%s asked did not let go within %.1f s: "
               "the request was not honoured\n",
               o->path, left, n_asked, n_asked == 1 ? "" : "s",
               (double)wait / 1000.0);
        code = ZKCLI_EXIT_NOT_HONOURED;
      } else {
        zkcli_err("cannot tell whether the holders of %s let go: %s", o->path,
                  zkc_strerror(rc));
        code = zkcli_exit_code(rc);
      }
    }
    if (zkcli_flush_stdout() != 0) code = ZKCLI_EXIT_IOERR;
  } else if (rc == ZKC_EINVAL) {
    zkcli_bad_path("lock path", o->path);
    code = ZKCLI_EXIT_BADPATH;
  } else {
    zkcli_err("cannot revoke %s: %s", o->path, zkc_strerror(rc));
    code = zkcli_exit_code(rc);
  }
  for (size_t i = 0; i < n_asked; i++) free(asked[i]);
  free(asked);
  zkc_client_close(c);
  return code;
}
