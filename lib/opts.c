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

/* The smallest size of each struct a release took (1.0.0, the first with
 * sized calls): fields are only ever appended, so any later size is larger. */
#define CLIENT_OPTS_MIN sizeof(zkc_client_opts_t)
#define LATCH_OPTS_MIN sizeof(zkc_latch_opts_t)
#define SEM_OPTS_MIN sizeof(zkc_sem_opts_t)
#define SELECTOR_OPTS_MIN sizeof(zkc_selector_opts_t)
#define ASYNC_OPTS_MIN sizeof(zkc_async_opts_t)

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

/* Fills a caller's struct of `size` bytes: the defaults this library knows
 * (`dflt`, `known` bytes), zeros beyond. */
static void fill(void *opts, size_t size, const void *dflt, size_t known) {
  memcpy(opts, dflt, size < known ? size : known);
  if (size > known) memset((char *)opts + known, 0, size - known);
}

/* The sized init of every options struct: fills it with the defaults
 * (`dflt`, what the 0.x init gives) once its size is one to take. */
static int init_sized(const char *fn, const char *type, void *opts,
                      size_t size, size_t min, const void *dflt, size_t known) {
  int rc = zkc__refuse_null(NULL, fn, "opts", opts == NULL, (char *)NULL);
  if (rc == ZKC_OK) rc = check_size(NULL, fn, type, NULL, size, min, known);
  if (rc == ZKC_OK) fill(opts, size, dflt, known);
  return rc;
}

/* The caller's options as this library reads them: its `size` bytes over
 * the defaults in `own` (filled by the 0.x init), so a smaller struct of
 * an older release reads the defaults of the fields it lacks. */
static void overlay(void *own, size_t known, const void *opts, size_t size) {
  memcpy(own, opts, size < known ? size : known);
}

/* ---- client ---- */

static int client_opts_init_size_impl(zkc_client_opts_t *opts, size_t size) {
  zkc_client_opts_t d;
  zkc__client_opts_defaults(&d);
  return init_sized("zkc_client_opts_init_size", "zkc_client_opts_t", opts,
                    size, CLIENT_OPTS_MIN, &d, sizeof d);
}

int zkc_client_opts_init_size(zkc_client_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_opts_init_size_impl(opts, size));
}

static int client_open_size_impl(zkc_client_t **out, const char *connect_string,
                                 const zkc_client_opts_t *opts,
                                 size_t opts_size) {
  if (out != NULL) *out = NULL;
  if (opts == NULL) return zkc__client_open(out, connect_string, NULL);
  int rc = check_size(NULL, "zkc_client_open_size", "zkc_client_opts_t", opts,
                      opts_size, CLIENT_OPTS_MIN, sizeof *opts);
  if (rc != ZKC_OK) return rc;
  zkc_client_opts_t o;
  zkc__client_opts_defaults(&o);
  overlay(&o, sizeof o, opts, opts_size);
  return zkc__client_open(out, connect_string, &o);
}

int zkc_client_open_size(zkc_client_t **out, const char *connect_string,
                         const zkc_client_opts_t *opts, size_t opts_size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           client_open_size_impl(out, connect_string, opts,
                                                 opts_size));
}

/* ---- leader latch ---- */

static int latch_opts_init_size_impl(zkc_latch_opts_t *opts, size_t size) {
  zkc_latch_opts_t d;
  zkc__latch_opts_defaults(&d);
  return init_sized("zkc_latch_opts_init_size", "zkc_latch_opts_t", opts,
                    size, LATCH_OPTS_MIN, &d, sizeof d);
}

int zkc_latch_opts_init_size(zkc_latch_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           latch_opts_init_size_impl(opts, size));
}

static int latch_create_size_impl(zkc_latch_t **out, zkc_client_t *client,
                                  const char *path, const char *id,
                                  const zkc_latch_opts_t *opts,
                                  size_t opts_size) {
  if (out != NULL) *out = NULL;
  if (opts == NULL) return zkc__latch_create(out, client, path, id, NULL);
  int rc = check_size(client, "zkc_latch_create_size", "zkc_latch_opts_t", opts,
                      opts_size, LATCH_OPTS_MIN, sizeof *opts);
  if (rc != ZKC_OK) return rc;
  zkc_latch_opts_t o;
  zkc__latch_opts_defaults(&o);
  overlay(&o, sizeof o, opts, opts_size);
  return zkc__latch_create(out, client, path, id, &o);
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

static int sem_opts_init_size_impl(zkc_sem_opts_t *opts, size_t size) {
  zkc_sem_opts_t d;
  zkc__sem_opts_defaults(&d);
  return init_sized("zkc_sem_opts_init_size", "zkc_sem_opts_t", opts,
                    size, SEM_OPTS_MIN, &d, sizeof d);
}

int zkc_sem_opts_init_size(zkc_sem_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark, sem_opts_init_size_impl(opts, size));
}

static int sem_create_size_impl(zkc_sem_t **out, zkc_client_t *client,
                                const char *path, const zkc_sem_opts_t *opts,
                                size_t opts_size) {
  if (out != NULL) *out = NULL;
  if (opts == NULL) return zkc__sem_create(out, client, path, NULL);
  int rc = check_size(client, "zkc_sem_create_size", "zkc_sem_opts_t", opts,
                      opts_size, SEM_OPTS_MIN, sizeof *opts);
  if (rc != ZKC_OK) return rc;
  zkc_sem_opts_t o;
  zkc__sem_opts_defaults(&o);
  overlay(&o, sizeof o, opts, opts_size);
  return zkc__sem_create(out, client, path, &o);
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

static int selector_opts_init_size_impl(zkc_selector_opts_t *opts,
                                        size_t size) {
  zkc_selector_opts_t d;
  zkc__selector_opts_defaults(&d);
  return init_sized("zkc_selector_opts_init_size", "zkc_selector_opts_t", opts,
                    size, SELECTOR_OPTS_MIN, &d, sizeof d);
}

int zkc_selector_opts_init_size(zkc_selector_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           selector_opts_init_size_impl(opts, size));
}

static int selector_create_size_impl(zkc_selector_t **out, zkc_client_t *client,
                                     const char *path,
                                     zkc_selector_fn take_leadership, void *ctx,
                                     const zkc_selector_opts_t *opts,
                                     size_t opts_size) {
  if (out != NULL) *out = NULL;
  if (opts == NULL)
    return zkc__selector_create(out, client, path, take_leadership, ctx, NULL);
  int rc = check_size(client, "zkc_selector_create_size", "zkc_selector_opts_t",
                      opts, opts_size, SELECTOR_OPTS_MIN, sizeof *opts);
  if (rc != ZKC_OK) return rc;
  zkc_selector_opts_t o;
  zkc__selector_opts_defaults(&o);
  overlay(&o, sizeof o, opts, opts_size);
  return zkc__selector_create(out, client, path, take_leadership, ctx, &o);
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

static int async_opts_init_size_impl(zkc_async_opts_t *opts, size_t size) {
  zkc_async_opts_t d;
  zkc__async_opts_defaults(&d);
  return init_sized("zkc_async_opts_init_size", "zkc_async_opts_t", opts,
                    size, ASYNC_OPTS_MIN, &d, sizeof d);
}

int zkc_async_opts_init_size(zkc_async_opts_t *opts, size_t size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           async_opts_init_size_impl(opts, size));
}

static int async_create_size_impl(zkc_async_t **out, zkc_client_t *client,
                                  const zkc_async_opts_t *opts,
                                  size_t opts_size) {
  if (out != NULL) *out = NULL;
  if (opts == NULL) return zkc__async_create(out, client, NULL);
  int rc = check_size(client, "zkc_async_create_size", "zkc_async_opts_t", opts,
                      opts_size, ASYNC_OPTS_MIN, sizeof *opts);
  if (rc != ZKC_OK) return rc;
  zkc_async_opts_t o;
  zkc__async_opts_defaults(&o);
  overlay(&o, sizeof o, opts, opts_size);
  return zkc__async_create(out, client, &o);
}

int zkc_async_create_size(zkc_async_t **out, zkc_client_t *client,
                          const zkc_async_opts_t *opts, size_t opts_size) {
  unsigned mark = zkc__public_enter();
  return zkc__public_leave(__func__, mark,
                           async_create_size_impl(out, client, opts,
                                                  opts_size));
}
