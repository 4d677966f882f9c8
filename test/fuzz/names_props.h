/* SPDX-License-Identifier: Apache-2.0 */
/* Properties of lib/names.c that must hold for every input, shared by the
 * libFuzzer targets and the unit tests. Each check returns NULL when the
 * property holds, else a message naming the one that failed. */
#ifndef ZKC_NAMES_PROPS_H
#define ZKC_NAMES_PROPS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "zkcoord/common.h"

/* An accepted lock path: the validator's contract, checked byte by byte
 * independently of its implementation. */
static inline const char *zkp_accepted_path(const char *p) {
  size_t n = strlen(p);
  if (p[0] != '/') return "accepted a path not starting with '/'";
  if (n < 2 || n > ZKC__PATH_MAX) return "accepted a path of bad length";
  if (p[n - 1] == '/') return "accepted a trailing '/'";
  if (strstr(p, "//")) return "accepted an empty segment";
  if (strcmp(p, "/zookeeper") == 0 || strncmp(p, "/zookeeper/", 11) == 0)
    return "accepted a path under /zookeeper";
  for (const char *s = p; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c < 0x20 || c == 0x7f) return "accepted a control byte";
    if (c == 0xc0 || c == 0xc1 || c >= 0xf5) return "accepted a byte never in UTF-8";
    if (c == '/' && s[1] == '.' && (s[2] == '/' || s[2] == '\0'))
      return "accepted a '.' segment";
    if (c == '/' && s[1] == '.' && s[2] == '.' && (s[3] == '/' || s[3] == '\0'))
      return "accepted a '..' segment";
  }
  /* The helpers the recipes use on a valid path. */
  const char *base = zkc__basename(p);
  if (base[0] == '\0' || strchr(base, '/')) return "basename of a valid path";
  char *parent = zkc__path_parent(p);
  if (parent == NULL) return "no parent for a valid path";
  const char *err = NULL;
  if (strcmp(parent, "/") != 0) {
    if (zkc__path_validate(parent) != ZKC_OK)
      err = "the parent of a valid path is invalid";
    char *joined = zkc__path_join(parent, base);
    if (joined == NULL || strcmp(joined, p) != 0)
      err = "join(parent, basename) is not the path";
    free(joined);
  } else if (base != p + 1) {
    err = "parent \"/\" of a path with several segments";
  }
  free(parent);
  return err;
}

/* An accepted host list: entries of printable ASCII ending in :1..65535. */
static inline const char *zkp_accepted_hosts(const char *s) {
  size_t end = strcspn(s, "/");
  const char *entry = s;
  for (;;) {
    size_t len = strcspn(entry, ",/");
    const char *colon = NULL;
    for (size_t i = 0; i < len; i++) {
      unsigned char c = (unsigned char)entry[i];
      if (c <= ' ' || c >= 0x7f) return "accepted a host byte that is not printable ASCII";
      if (c == ':') colon = entry + i;
    }
    if (colon == NULL || colon == entry) return "accepted an entry without host:port";
    char *stop;
    long port = strtol(colon + 1, &stop, 10);
    if (stop != entry + len || colon + 1 == stop || port < 1 || port > 65535 ||
        colon[1] == '+' || colon[1] == '-' || colon[1] == ' ')
      return "accepted a bad port";
    if ((size_t)(entry + len - s) == end) return NULL;
    entry += len + 1;
  }
}

/* "%010d" of v after `prefix`, as ZooKeeper names a sequential node, parses
 * back to v. */
static inline const char *zkp_sequence_round_trip(const char *prefix, int32_t v) {
  char name[128];
  snprintf(name, sizeof name, "%s%010d", prefix, v);
  int64_t got;
  if (!zkc__node_sequence(name, &got)) return "a formatted sequence did not parse";
  if (got != v) return "a formatted sequence parsed to another value";
  return NULL;
}

/* Sorting n names: exactly the names with a sequence come out, each once,
 * keyed by that sequence (plus 2^32 for wrapped negatives), in a total
 * order (key, then name); every contender's index is found and its
 * predecessor sorts strictly before it unless it is a duplicate name. */
static inline const char *zkp_sorted(char *const *names, size_t n) {
  zkc__contender_t *out = malloc((n ? n : 1) * sizeof *out);
  if (out == NULL) return NULL;
  size_t m = zkc__sort_contenders(names, n, out);
  const char *err = NULL;
  size_t with_seq = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t s;
    if (zkc__node_sequence(names[i], &s)) with_seq++;
  }
  if (m != with_seq) err = "contender count differs from names with a sequence";
  int wrapped = 0;
  for (size_t i = 0; i < m && !err; i++) {
    int64_t s;
    if (!zkc__node_sequence(out[i].name, &s)) {
      err = "a contender without a sequence";
      break;
    }
    if (s < INT32_MIN || s > INT32_MAX) err = "a sequence outside int32";
    else if (out[i].key == s + ((int64_t)1 << 32) && s < 0) wrapped = 1;
    else if (out[i].key != s) err = "a key that is not the sequence";
    int found = 0;
    for (size_t j = 0; j < n; j++) found |= names[j] == out[i].name;
    if (!found) err = "a contender not from the input";
    if (i > 0) {
      const zkc__contender_t *a = &out[i - 1], *b = &out[i];
      int c = strcmp(a->name, b->name);
      if (a->key > b->key || (a->key == b->key && c > 0)) err = "not sorted";
    }
    long idx = zkc__contender_index(out, m, out[i].name);
    if (idx < 0 || (size_t)idx > i || strcmp(out[idx].name, out[i].name) != 0)
      err = "index lookup does not find the contender";
  }
  /* A queue spanning the wrap (values near both ends of int32) puts every
   * negative sequence, issued after the wrap, behind every other one;
   * otherwise nothing is shifted. */
  int high = 0, low = 0;
  for (size_t i = 0; i < m; i++) {
    int64_t s = 0;
    zkc__node_sequence(out[i].name, &s);
    high |= s >= (1 << 30);
    low |= s < -(1 << 30);
  }
  if (!err && wrapped != (high && low)) err = "shifted keys without a wrap, or none with one";
  for (size_t i = 1; i < m && !err && high && low; i++) {
    int64_t a = 0, b = 0;
    zkc__node_sequence(out[i - 1].name, &a);
    zkc__node_sequence(out[i].name, &b);
    if (a < 0 && b >= 0) err = "a pre-wrap sequence sorted after a post-wrap one";
  }
  free(out);
  return err;
}

#endif /* ZKC_NAMES_PROPS_H */
