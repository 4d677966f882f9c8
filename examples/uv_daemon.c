/* SPDX-License-Identifier: Apache-2.0 */
/* uv_daemon: a libuv daemon that serves requests on its loop and takes a
 * zkcoord lock asynchronously around each request's critical section. The
 * loop thread never blocks on ZooKeeper: zkcoord's callbacks are queued
 * (ZKC_DELIVER_DISPATCH) and run by the loop when zkcoord's descriptor is
 * readable.
 *
 *   uv_daemon CONNECT LOCKPATH PORT     serve: each line received on the TCP
 *                                       port is one request; the answer is
 *                                       "done <fencing token> <count>"
 *   uv_daemon CONNECT LOCKPATH --self N N requests at once from the loop
 *                                       itself; exit 0 if none overlapped
 *
 * The critical section is a read-modify-write of a counter that lasts a
 * few loop iterations (a timer): other requests wait in zkcoord's queue
 * meanwhile, while the loop goes on serving. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include <zkcoord/zkcoord.h>

static uv_loop_t *loop;
static zkc_async_t *async;
static const char *lock_path;
static long counter;      /* the state the lock protects */
static int inside;        /* requests in the critical section: at most 1 */
static int overlaps, pending, failures;

/* A client connection outlives its socket while requests of it are still
 * waiting for the lock: they answer only while it is open. */
typedef struct conn {
  uv_tcp_t tcp; /* first: the handle is the connection */
  int refs;     /* the socket's own, plus one per request */
  int open;
} conn_t;

static void conn_unref(conn_t *c) {
  if (c != NULL && --c->refs == 0) free(c);
}
static void conn_closed(uv_handle_t *h) { conn_unref((conn_t *)h); }

typedef struct request {
  uv_timer_t work;    /* the critical section's duration */
  zkc_hold_t *hold;
  conn_t *client;     /* NULL in --self mode */
  char answer[96];
} request_t;

static void on_written(uv_write_t *w, int status) {
  (void)status;
  free(w->data);
  free(w);
}

static void answer(request_t *r) {
  if (r->client == NULL || !r->client->open) return;
  uv_write_t *w = malloc(sizeof *w);
  char *copy = strdup(r->answer);
  if (w == NULL || copy == NULL) {
    free(w);
    free(copy);
    return;
  }
  w->data = copy;
  uv_buf_t b = uv_buf_init(copy, (unsigned)strlen(copy));
  uv_write(w, (uv_stream_t *)&r->client->tcp, &b, 1, on_written);
}

static void request_free(uv_handle_t *h) {
  request_t *r = h->data;
  conn_unref(r->client);
  free(r);
}

static void on_released(void *ctx, int rc) {
  request_t *r = ctx;
  if (rc != ZKC_OK) fprintf(stderr, "release: %s\n", zkc_strerror(rc));
  answer(r);
  zkc_hold_free(r->hold);
  pending--;
  uv_close((uv_handle_t *)&r->work, request_free);
}

/* The critical section ends: write the counter back, release. */
static void work_done(uv_timer_t *t) {
  request_t *r = t->data;
  long seen = counter;
  counter = seen + 1;
  inside--;
  int64_t token = 0;
  zkc_hold_fencing_token(r->hold, &token);
  snprintf(r->answer, sizeof r->answer, "done %lld %ld\n", (long long)token,
           counter);
  int rc = zkc_hold_release(async, r->hold, on_released, r);
  if (rc != ZKC_OK) on_released(r, rc);
}

static void on_acquired(void *ctx, int rc, zkc_hold_t *hold) {
  request_t *r = ctx;
  if (rc != ZKC_OK) {
    fprintf(stderr, "acquire: %s\n", zkc_strerror(rc));
    snprintf(r->answer, sizeof r->answer, "error %s\n", zkc_strerror(rc));
    answer(r);
    failures++;
    pending--;
    uv_close((uv_handle_t *)&r->work, request_free);
    return;
  }
  r->hold = hold;
  if (++inside > 1) overlaps++;
  uv_timer_start(&r->work, work_done, 5, 0); /* the lock is held across
                                                 loop iterations */
}

static int request_start(conn_t *client) {
  request_t *r = calloc(1, sizeof *r);
  if (r == NULL) return ZKC_ENOMEM;
  r->client = client;
  if (client != NULL) client->refs++;
  uv_timer_init(loop, &r->work);
  r->work.data = r;
  int rc = zkc_async_acquire(async, lock_path, 30000, on_acquired, r, NULL);
  if (rc != ZKC_OK) {
    uv_close((uv_handle_t *)&r->work, request_free);
    return rc;
  }
  pending++;
  return ZKC_OK;
}

/* zkcoord has callbacks waiting: run them here, on the loop's thread. */
static void on_zkcoord(uv_poll_t *p, int status, int events) {
  (void)p, (void)status, (void)events;
  zkc_async_dispatch(async, NULL);
}

/* ---- the TCP side: one request per line ---- */

static void on_alloc(uv_handle_t *h, size_t size, uv_buf_t *buf) {
  (void)h;
  buf->base = malloc(size);
  buf->len = buf->base ? size : 0;
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  for (ssize_t i = 0; i < n; i++)
    if (buf->base[i] == '\n' && request_start((conn_t *)s) != ZKC_OK)
      fprintf(stderr, "request refused\n");
  free(buf->base);
  if (n < 0) {
    ((conn_t *)s)->open = 0;
    uv_close((uv_handle_t *)s, conn_closed);
  }
}

static void on_connection(uv_stream_t *server, int status) {
  if (status < 0) return;
  conn_t *client = calloc(1, sizeof *client);
  if (client == NULL) return;
  client->refs = 1, client->open = 1;
  uv_tcp_init(loop, &client->tcp);
  if (uv_accept(server, (uv_stream_t *)&client->tcp) == 0) {
    uv_read_start((uv_stream_t *)&client->tcp, on_alloc, on_read);
  } else {
    client->open = 0;
    uv_close((uv_handle_t *)&client->tcp, conn_closed);
  }
}

/* --self: stop once every request is answered. */
static void check_done(uv_idle_t *idle) {
  if (pending > 0) return;
  uv_idle_stop(idle);
  uv_stop(loop);
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: %s CONNECT LOCKPATH PORT | CONNECT LOCKPATH "
                    "--self N\n", argv[0]);
    return 64;
  }
  lock_path = argv[2];
  zkc_client_t *c = NULL;
  int rc = zkc_client_open(&c, argv[1], NULL); /* before the loop runs */
  zkc_async_opts_t o;
  zkc_async_opts_init(&o);
  o.delivery = ZKC_DELIVER_DISPATCH;
  if (rc == ZKC_OK) rc = zkc_async_create(&async, c, &o);
  int fd = -1;
  if (rc == ZKC_OK) rc = zkc_async_fd(async, &fd);
  if (rc != ZKC_OK) {
    fprintf(stderr, "zkcoord: %s\n", zkc_strerror(rc));
    return 69;
  }
  loop = uv_default_loop();
  uv_poll_t poll;
  uv_poll_init(loop, &poll, fd);
  uv_poll_start(&poll, UV_READABLE, on_zkcoord);

  uv_tcp_t server;
  uv_idle_t idle;
  if (strcmp(argv[3], "--self") == 0 && argc == 5) {
    int n = atoi(argv[4]);
    for (int i = 0; i < n; i++)
      if (request_start(NULL) != ZKC_OK) failures++;
    uv_idle_init(loop, &idle);
    uv_idle_start(&idle, check_done);
  } else {
    struct sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", atoi(argv[3]), &addr);
    uv_tcp_init(loop, &server);
    uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0);
    if (uv_listen((uv_stream_t *)&server, 128, on_connection) != 0) {
      fprintf(stderr, "cannot listen on %s\n", argv[3]);
      return 69;
    }
    printf("serving on 127.0.0.1:%s, lock %s\n", argv[3], lock_path);
    fflush(stdout);
  }
  uv_run(loop, UV_RUN_DEFAULT);
  uv_poll_stop(&poll);
  printf("requests done: counter %ld, overlaps %d, failures %d\n", counter,
         overlaps, failures);
  zkc_async_destroy(async);
  zkc_client_close(c);
  return overlaps == 0 && failures == 0 ? 0 : 1;
}
