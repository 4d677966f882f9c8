/* SPDX-License-Identifier: Apache-2.0 */
/* The error space: zkcoord's table, and the one translation of the
 * ZooKeeper client's codes into it. */
#define THREADED
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <zookeeper/zookeeper.h>

#include "errors.h"
#include "zkcoord/common.h"

const char *zkc_strerror(int rc) {
  switch (rc) {
    case ZKC_OK:
      return "success";
#define ZKC__ERRNO_MSG(name, value, msg) \
  case ZKC_##name:                       \
    return msg;
      ZKC_ERRNO_MAP(ZKC__ERRNO_MSG)
#undef ZKC__ERRNO_MSG
    default:
      return "unknown error code";
  }
}

const char *zkc_err_name(int rc) {
  switch (rc) {
    case ZKC_OK:
      return "ZKC_OK";
#define ZKC__ERRNO_NAME(name, value, msg) \
  case ZKC_##name:                        \
    return "ZKC_" #name;
      ZKC_ERRNO_MAP(ZKC__ERRNO_NAME)
#undef ZKC__ERRNO_NAME
    default:
      return "UNKNOWN";
  }
}

int zkc__zk_error(int zk_rc) {
  switch (zk_rc) {
    case ZOK: return ZKC_OK;
    case ZCONNECTIONLOSS: return ZKC_ECONNLOSS;
    case ZOPERATIONTIMEOUT: return ZKC_EOPTIMEOUT;
    /* A reply out of order (the server let a request go unanswered): the
     * client drops the connection and tells every request in flight this
     * code. Their outcome is unknown, as with a connection loss. */
    case ZRUNTIMEINCONSISTENCY: return ZKC_ECONNLOSS;
    /* The handle is expired or closed: its session is over either way. */
    case ZSESSIONEXPIRED:
    case ZINVALIDSTATE: return ZKC_ESESSIONEXPIRED;
    case ZNOAUTH: return ZKC_ENOAUTH;
    case ZAUTHFAILED:
    case ZSESSIONCLOSEDREQUIRESASLAUTH: return ZKC_EAUTHFAILED;
    case ZNONODE: return ZKC_ENONODE;
    case ZNODEEXISTS: return ZKC_ENODEEXISTS;
    case ZNOTEMPTY: return ZKC_ENOTEMPTY;
    case ZBADVERSION: return ZKC_EBADVERSION;
    case ZBADARGUMENTS: return ZKC_EBADARGS;
    case ZINVALIDACL: return ZKC_EINVALIDACL;
    case ZNOCHILDRENFOREPHEMERALS: return ZKC_ENOCHILDREN;
    case ZNOTREADONLY: return ZKC_EREADONLY;
    case ZTHROTTLEDOP: return ZKC_ETHROTTLED;
    case ZCLOSING: return ZKC_ECLOSED;
    case ZSYSTEMERROR: return ZKC_ESYSTEM;
    default: return ZKC_EPROTO; /* marshalling, API misuse, unknown: a bug */
  }
}

static _Thread_local int last_zk_code;

void zkc__note_zk_code(int zk_rc) {
  if (zk_rc != ZOK) last_zk_code = zk_rc;
}

void zkc__note_auth_refused(void) { last_zk_code = ZAUTHFAILED; }

int zkc_last_zk_code(void) { return last_zk_code; }

/* zkc_last_error_message: what the thread's last failed public call
 * returned, explained (zkc__public_leave, session.h). A refusal writes its
 * detail at once and notes the code it refused with; the call's end keeps that detail
 * when the call fails with the same code, else writes the code's own
 * message under the call's name. */
static _Thread_local char last_message[512];
static _Thread_local unsigned detail_seq; /* refusals written so far */
static _Thread_local int detail_rc;       /* the last one's code */

void zkc__error_message_vset(int rc, const char *fmt, va_list ap) {
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  detail_seq++;
  detail_rc = rc;
}

void zkc__error_detail(int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  zkc__error_message_vset(rc, fmt, ap);
  va_end(ap);
}

unsigned zkc__public_enter(void) { return detail_seq; }

int zkc__error_detailed_since(unsigned mark, int rc) {
  return detail_seq != mark && detail_rc == rc;
}

/* "zkc_<identifier>: ..." */
static int names_a_call(const char *msg) {
  if (strncmp(msg, "zkc_", 4) != 0) return 0;
  size_t i = 4;
  while (msg[i] == '_' || (msg[i] >= 'a' && msg[i] <= 'z') ||
         (msg[i] >= '0' && msg[i] <= '9'))
    i++;
  return msg[i] == ':' && msg[i + 1] == ' ';
}

int zkc__public_leave(const char *fn, unsigned mark, int rc) {
  if (rc >= 0) return rc;
  if (!zkc__error_detailed_since(mark, rc)) {
    snprintf(last_message, sizeof last_message, "%s: %s", fn, zkc_strerror(rc));
    return rc;
  }
  /* A detail written deep down (a layout refusal says "lock: path ...")
   * still names the public call first, as zkc_last_error_message promises;
   * one that names a call already (the unsized form the caller wrote,
   * where fn is its _size body) is kept. */
  size_t n = strlen(fn);
  if (!names_a_call(last_message)) {
    size_t room = sizeof last_message - 1, head = n + 2 < room ? n + 2 : room;
    size_t keep = strnlen(last_message, room);
    if (keep > room - head) keep = room - head;
    memmove(last_message + head, last_message, keep);
    memcpy(last_message, fn, head < n ? head : n);
    if (head == n + 2) memcpy(last_message + n, ": ", 2);
    last_message[head + keep] = '\0';
  }
  return rc;
}

const char *zkc_last_error_message(void) { return last_message; }
