/* SPDX-License-Identifier: Apache-2.0 */
/* Credentials and ACLs: checking the options, building the ZooKeeper ACL
 * vectors once at open, and choosing the ACL of each node zkcoord creates. */
#include <stdlib.h>
#include <string.h>

#include "acl.h"

#include "zkcoord/common.h"

/* "user:password": a non-empty user without ':', a non-empty password. */
static int digest_valid(const char *d) {
  const char *colon = strchr(d, ':');
  return colon != NULL && colon != d && colon[1] != '\0';
}

static int entries_valid(const zkc_acl_t *acl, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (acl[i].scheme == NULL || acl[i].scheme[0] == '\0' ||
        acl[i].id == NULL || acl[i].perms <= 0 ||
        (acl[i].perms & ~ZKC_PERM_ALL) != 0)
      return 0;
  return 1;
}

const char *zkc__acl_opts_problem(const zkc_client_opts_t *o) {
  if (o->auth_digest != NULL && !digest_valid(o->auth_digest))
    return "auth_digest must be \"user:password\" (a non-empty user and "
           "password)";
  if (o->acl_preset != ZKC_ACL_OPEN && o->acl_preset != ZKC_ACL_SECURE)
    return "acl_preset is neither ZKC_ACL_OPEN nor ZKC_ACL_SECURE";
  if ((o->acl == NULL) != (o->acl_count == 0))
    return "acl and acl_count disagree (one is set, the other not)";
  if (o->acl != NULL && !entries_valid(o->acl, o->acl_count))
    return "an acl entry is invalid (an empty or NULL scheme, a NULL id, or "
           "permissions none or outside ZKC_PERM_ALL)";
  /* CREATOR_ALL names the session's credentials: without any the server
   * refuses every create (ZKC_EINVALIDACL). */
  if (o->acl_preset == ZKC_ACL_SECURE && o->acl == NULL &&
      o->auth_digest == NULL)
    return "acl_preset ZKC_ACL_SECURE needs auth_digest (or an explicit acl)";
  return NULL;
}

static void vector_free(struct ACL_vector *v) {
  for (int32_t i = 0; v->data && i < v->count; i++) {
    free(v->data[i].id.scheme);
    free(v->data[i].id.id);
  }
  free(v->data);
  v->data = NULL;
  v->count = 0;
}

static int vector_from(struct ACL_vector *v, const zkc_acl_t *acl, size_t n) {
  v->data = calloc(n, sizeof *v->data);
  v->count = 0;
  if (v->data == NULL) return ZKC_ENOMEM;
  for (size_t i = 0; i < n; i++, v->count++) {
    v->data[i].perms = acl[i].perms;
    v->data[i].id.scheme = strdup(acl[i].scheme);
    v->data[i].id.id = strdup(acl[i].id);
    if (v->data[i].id.scheme == NULL || v->data[i].id.id == NULL) {
      v->count++;
      vector_free(v);
      return ZKC_ENOMEM;
    }
  }
  return ZKC_OK;
}

int zkc__acl_setup(zkc__acls_t *a, zkc_client_opts_t *o) {
  if (o->auth_digest && (a->auth_digest = strdup(o->auth_digest)) == NULL)
    return ZKC_ENOMEM;
  o->auth_digest = a->auth_digest;
  a->fn = o->acl_fn;
  a->ctx = o->acl_ctx;
  static const zkc_acl_t open_acl[] = {{ZKC_PERM_ALL, "world", "anyone"}};
  static const zkc_acl_t creator[] = {{ZKC_PERM_ALL, "auth", ""}};
  static const zkc_acl_t creator_world_read[] = {
      {ZKC_PERM_ALL, "auth", ""}, {ZKC_PERM_READ, "world", "anyone"}};
  const zkc_acl_t *part = open_acl, *parent = open_acl;
  size_t npart = 1, nparent = 1;
  if (o->acl != NULL) {
    part = parent = o->acl;
    npart = nparent = o->acl_count;
  } else if (o->acl_preset == ZKC_ACL_SECURE) {
    part = creator, npart = 1;
    parent = creator_world_read, nparent = 2;
  }
  int rc = vector_from(&a->participant, part, npart);
  if (rc == ZKC_OK) rc = vector_from(&a->parent, parent, nparent);
  /* The copy in opts would dangle: the vectors are what is used. */
  o->acl = NULL;
  o->acl_count = 0;
  return rc;
}

void zkc__acl_free(zkc__acls_t *a) {
  vector_free(&a->participant);
  vector_free(&a->parent);
  free(a->auth_digest);
  a->auth_digest = NULL;
}

int zkc__acl_for(const zkc__acls_t *a, const char *path, zkc_node_kind_t kind,
                 struct ACL_vector *tmp, const struct ACL_vector **out) {
  *out = kind == ZKC_NODE_PARENT ? &a->parent : &a->participant;
  tmp->count = 0;
  tmp->data = NULL;
  if (a->fn == NULL) return ZKC_OK;
  size_t n = 0;
  const zkc_acl_t *acl = a->fn(a->ctx, path, kind, &n);
  if (acl == NULL) return ZKC_OK;
  if (n == 0 || !entries_valid(acl, n)) return ZKC_EINVAL; /* told by ops.c */
  int rc = vector_from(tmp, acl, n);
  if (rc == ZKC_OK) *out = tmp;
  return rc;
}

void zkc__acl_tmp_free(struct ACL_vector *tmp) { vector_free(tmp); }
