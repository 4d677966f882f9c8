/* SPDX-License-Identifier: Apache-2.0 */
/* Credentials and ACLs (acl.c): part of the session layer, since the ACL
 * vectors are the ZooKeeper client's own type. */
#ifndef ZKC_ACL_H
#define ZKC_ACL_H

#define THREADED
#include <zookeeper/zookeeper.h>

#include "zkcoord/client.h"

/* A client's credentials and ACLs, built from its options at open: held
 * by the client (client_struct.h), so that the ACL code stands on nothing
 * of the client but these. */
typedef struct zkc__acls {
  char *auth_digest;             /* copy of opts.auth_digest */
  struct ACL_vector participant; /* of lock, latch and selector nodes */
  struct ACL_vector parent;      /* of parents zkcoord creates */
  zkc_acl_fn fn;                 /* opts.acl_fn, asked per node */
  void *ctx;
} zkc__acls_t;

/* 1 when the auth and ACL options are well-formed. */
const char *zkc__acl_opts_problem(const zkc_client_opts_t *opts);
/* Copies the credentials and builds the ACL vectors from *opts, which then
 * points at the copies (auth_digest) or no longer at the caller's (acl). */
int zkc__acl_setup(zkc__acls_t *a, zkc_client_opts_t *opts);
void zkc__acl_free(zkc__acls_t *a);
/* The ACL for a node about to be created at `path`: one of the client's
 * vectors, or the acl_fn's answer converted into *tmp (freed with
 * zkc__acl_tmp_free after the request is submitted). ZKC_EINVAL, told by
 * the caller (the send's refusal, ops.c), when acl_fn's answer is not an
 * ACL; ZKC_ENOMEM. */
int zkc__acl_for(const zkc__acls_t *a, const char *path, zkc_node_kind_t kind,
                 struct ACL_vector *tmp, const struct ACL_vector **out);
void zkc__acl_tmp_free(struct ACL_vector *tmp);

#endif /* ZKC_ACL_H */
