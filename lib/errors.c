/* zkc_strerror / zkc_err_name: zkcoord's table plus ZooKeeper's codes. */
#define THREADED
#include <zookeeper/zookeeper.h>

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
      return zerror(rc); /* ZooKeeper's own message, "unknown error" else */
  }
}

/* ZooKeeper's codes that a zkcoord caller can meet, by name. */
#define ZKC__ZK_CODES(XX)                                                      \
  XX(ZSYSTEMERROR) XX(ZRUNTIMEINCONSISTENCY) XX(ZDATAINCONSISTENCY)            \
  XX(ZCONNECTIONLOSS) XX(ZMARSHALLINGERROR) XX(ZUNIMPLEMENTED)                 \
  XX(ZOPERATIONTIMEOUT) XX(ZBADARGUMENTS) XX(ZINVALIDSTATE) XX(ZNEWCONFIGNOQUORUM) \
  XX(ZRECONFIGINPROGRESS) XX(ZSSLCONNECTIONERROR) XX(ZAPIERROR) XX(ZNONODE)    \
  XX(ZNOAUTH) XX(ZBADVERSION) XX(ZNOCHILDRENFOREPHEMERALS) XX(ZNODEEXISTS)     \
  XX(ZNOTEMPTY) XX(ZSESSIONEXPIRED) XX(ZINVALIDCALLBACK) XX(ZINVALIDACL)       \
  XX(ZAUTHFAILED) XX(ZCLOSING) XX(ZNOTHING) XX(ZSESSIONMOVED) XX(ZNOTREADONLY) \
  XX(ZEPHEMERALONLOCALSESSION) XX(ZNOWATCHER) XX(ZRECONFIGDISABLED)            \
  XX(ZSESSIONCLOSEDREQUIRESASLAUTH) XX(ZTHROTTLEDOP)

const char *zkc_err_name(int rc) {
  switch (rc) {
    case ZKC_OK:
      return "ZKC_OK";
#define ZKC__ERRNO_NAME(name, value, msg) \
  case ZKC_##name:                        \
    return "ZKC_" #name;
      ZKC_ERRNO_MAP(ZKC__ERRNO_NAME)
#undef ZKC__ERRNO_NAME
#define ZKC__ZK_NAME(code) \
  case code:               \
    return #code;
      ZKC__ZK_CODES(ZKC__ZK_NAME)
#undef ZKC__ZK_NAME
    default:
      return "UNKNOWN";
  }
}
