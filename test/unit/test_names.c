/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests, no server: path validation, node-name parsing, queue order. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "names.h"
#include "util.h" /* zkc__uuid_format */
#include "session_shared.h" /* zkc__zk_error */
#include "names_props.h" /* the fuzz targets' properties */
#include "zkcoord/version.h"
#include "zkcoord/common.h"
#include "zkcoord/client.h"
#include "zkcoord/mutex.h"
#include "zkcoord/status.h"

static void valid_paths(void **state) {
  (void)state;
  const char *ok[] = {"/a", "/locks/job-1", "/a/b/c", "/x.y", "/..a", "/a..",
                      "/caf\xc3\xa9", "/\xe2\x82\xac", "/zookeeperish"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
    assert_int_equal(zkc__path_validate(ok[i]), ZKC_OK);
}

static void invalid_paths(void **state) {
  (void)state;
  const char *bad[] = {
      "", "/", "a", "a/b", "/a/", "//a", "/a//b", "/.", "/a/.", "/./a", "/..",
      "/a/../b", "/a\x01", "/a\x1f" "b", "/a\x7f", "/a\xc2\x80",  /* C1 */
      "/\xed\xa0\x80",                                            /* surrogate */
      "/\xef\xbf\xbf",                                            /* U+FFFF */
      "/\xf0\x9f\x98\x80", /* outside the BMP */
      "/\xc0\xaf",         /* overlong '/' */
      "/\xff", "/\xc3",    /* invalid, truncated */
      "/zookeeper", "/zookeeper/quota"};
  assert_int_equal(zkc__path_validate(NULL), ZKC_EINVAL);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (zkc__path_validate(bad[i]) != ZKC_EINVAL)
      fail_msg("accepted invalid path #%zu", i);
  }
}

static void path_length_limit(void **state) {
  (void)state;
  char p[ZKC__PATH_MAX + 2];
  memset(p, 'a', sizeof p);
  p[0] = '/';
  p[ZKC__PATH_MAX] = '\0';
  assert_int_equal(zkc__path_validate(p), ZKC_OK);
  p[ZKC__PATH_MAX] = 'a';
  p[ZKC__PATH_MAX + 1] = '\0';
  assert_int_equal(zkc__path_validate(p), ZKC_EINVAL);
}

static void host_lists(void **state) {
  (void)state;
  const char *ok[] = {"127.0.0.1:2181", "zk1:2181,zk2:2182,zk3:65535",
                      "zk1:2181/app", "[::1]:2181", "a:1/"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
    if (zkc__hosts_validate(ok[i]) != ZKC_OK) fail_msg("refused %s", ok[i]);
  const char *bad[] = {"", "/app", "zk1", "zk1:", ":2181", "zk1:0",
                       "zk1:65536", "zk1:99999999999999999999", "zk1:21x1",
                       "zk1:2181,", ",zk1:2181", "zk1:2181,,zk2:2181",
                       "zk 1:2181", "zk1:2181 ", "z\xc3\xa9:2181", "zk\x01:1",
                       "zk1:2181,zk2/app"};
  assert_int_equal(zkc__hosts_validate(NULL), ZKC_EINVAL);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    if (zkc__hosts_validate(bad[i]) != ZKC_EINVAL) fail_msg("accepted %s", bad[i]);
}

static void id_length_limit(void **state) {
  (void)state;
  char *id = malloc(ZKC__DATA_MAX + 2);
  memset(id, 0xff, ZKC__DATA_MAX + 1); /* any bytes: ids are data */
  id[ZKC__DATA_MAX] = '\0';
  assert_int_equal(zkc__id_validate(id), ZKC_OK);
  id[ZKC__DATA_MAX] = 'x';
  id[ZKC__DATA_MAX + 1] = '\0';
  assert_int_equal(zkc__id_validate(id), ZKC_EINVAL);
  assert_int_equal(zkc__id_validate(NULL), ZKC_OK);
  free(id);
}

static int64_t seq_of(const char *name) {
  int64_t s = -999;
  if (!zkc__node_sequence(name, &s)) fail_msg("no sequence in %s", name);
  return s;
}

static void sequences_of_known_recipes(void **state) {
  (void)state;
  /* Curator / zkcoord protected names */
  assert_int_equal(
      seq_of("_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000003"), 3);
  /* Curator unprotected, ZooKeeper's C recipe, kazoo, go-zookeeper */
  assert_int_equal(seq_of("lock-0000000042"), 42);
  assert_int_equal(seq_of("x-72057594037927936-0000000007"), 7);
  assert_int_equal(seq_of("2f1d3c4b5a69788796a5b4c3d2e1f00__lock__0000000012"),
                   12);
  assert_int_equal(seq_of("_c_0123456789abcdef0123456789abcdef-lock-0000000100"),
                   100);
  assert_int_equal(seq_of("0000000000"), 0);
  assert_int_equal(seq_of("lock-2147483647"), INT32_MAX);
  assert_int_equal(seq_of("lock-1000000000"), 1000000000);
}

static void sequences_after_wrap(void **state) {
  (void)state;
  /* "%010d" of negative values once the counter wrapped past 2^31-1 */
  assert_int_equal(seq_of("_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock--2147483648"),
                   INT32_MIN);
  assert_int_equal(seq_of("lock--000000005"), -5);
  assert_int_equal(seq_of("abc__lock__-1000000000"), -1000000000);
  assert_int_equal(seq_of("-2147483647"), -2147483647);
  /* A negative value with a leading zero fits in 10 bytes: no sign here. */
  assert_int_equal(seq_of("-0000000001"), 1);
  assert_int_equal(seq_of("x--0000000005"), 5);
}

static void names_without_sequence(void **state) {
  (void)state;
  const char *none[] = {"", "lock-", "lock-12345", "lock-00000000x1", "readme",
                        "lock-9999999999", /* beyond int32: not ZooKeeper's */
                        "lock-00000000-1"};
  int64_t s;
  for (size_t i = 0; i < sizeof none / sizeof *none; i++)
    if (zkc__node_sequence(none[i], &s)) fail_msg("sequence found in %s", none[i]);
  assert_false(zkc__node_sequence(NULL, &s));
}

static void sort_by_sequence_not_prefix(void **state) {
  (void)state;
  char *names[] = {
      "_c_ffffffff-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000005",
      "zzz__lock__0000000002",
      "not-a-contender",
      "_c_00000000-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000009",
      "lock-0000000001",
  };
  zkc__contender_t out[5];
  size_t n = zkc__sort_contenders(names, 5, out);
  assert_int_equal(n, 4);
  assert_string_equal(out[0].name, "lock-0000000001");
  assert_string_equal(out[1].name, "zzz__lock__0000000002");
  assert_string_equal(out[2].name, names[0]);
  assert_string_equal(out[3].name, names[3]);
  assert_int_equal(zkc__contender_index(out, n, names[3]), 3);
  assert_int_equal(zkc__contender_index(out, n, "not-a-contender"), -1);
}

static void sort_across_wrap(void **state) {
  (void)state;
  char *names[] = {"lock--2147483647", "lock-2147483646", "lock--2147483648",
                   "lock-2147483647"};
  zkc__contender_t out[4];
  assert_int_equal(zkc__sort_contenders(names, 4, out), 4);
  assert_string_equal(out[0].name, "lock-2147483646");
  assert_string_equal(out[1].name, "lock-2147483647");
  assert_string_equal(out[2].name, "lock--2147483648");
  assert_string_equal(out[3].name, "lock--2147483647");
}

static void sort_near_but_not_across_wrap(void **state) {
  (void)state;
  /* Negative values alone (after the wrap, counting up to 0) sort as is. */
  char *names[] = {"lock-0000000001", "lock--000000001", "lock--2147483000"};
  zkc__contender_t out[3];
  assert_int_equal(zkc__sort_contenders(names, 3, out), 3);
  assert_string_equal(out[0].name, "lock--2147483000");
  assert_string_equal(out[1].name, "lock--000000001");
  assert_string_equal(out[2].name, "lock-0000000001");
}

static void duplicate_sequences_tie_by_name(void **state) {
  (void)state;
  char *names[] = {"b-lock-0000000001", "a-lock-0000000001"};
  zkc__contender_t out[2];
  assert_int_equal(zkc__sort_contenders(names, 2, out), 2);
  assert_string_equal(out[0].name, "a-lock-0000000001");
}

/* Read-write lock children of Curator and kazoo, and names that only look
 * like them. */
static void rw_kinds(void **state) {
  (void)state;
  const char *u = "_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-";
  char w[80], r[80], lk[80];
  snprintf(w, sizeof w, "%s__WRIT__0000000005", u);
  snprintf(r, sizeof r, "%s__READ__0000000007", u);
  snprintf(lk, sizeof lk, "%slock-0000000001", u);
  assert_int_equal(zkc__rw_kind(w), ZKC__RW_WRITE);
  assert_int_equal(zkc__rw_kind(r), ZKC__RW_READ);
  assert_int_equal(zkc__rw_kind(lk), ZKC__RW_OTHER);
  assert_int_equal(zkc__rw_kind("0f1e2d3c4b5a69788796a5b4c3d2e1f0__lock__0000000006"),
                   ZKC__RW_WRITE);
  assert_int_equal(zkc__rw_kind("0f1e2d3c4b5a69788796a5b4c3d2e1f0__rlock__0000000008"),
                   ZKC__RW_READ);
  /* After the counter wrapped. */
  assert_int_equal(zkc__rw_kind("x__WRIT__-2147483648"), ZKC__RW_WRITE);
  assert_int_equal(zkc__rw_kind("x__rlock__-000000005"), ZKC__RW_READ);
  /* A marker not right before the sequence, or no sequence. */
  assert_int_equal(zkc__rw_kind("__WRIT__x-0000000001"), ZKC__RW_OTHER);
  assert_int_equal(zkc__rw_kind("a__READ__b__lock__0000000002"), ZKC__RW_WRITE);
  assert_int_equal(zkc__rw_kind("a__WRIT__b__READ__0000000002"), ZKC__RW_READ);
  assert_int_equal(zkc__rw_kind("x__WRIT__000000001"), ZKC__RW_OTHER);
  assert_int_equal(zkc__rw_kind("x__WRIT__00000000012"), ZKC__RW_OTHER);
  assert_int_equal(zkc__rw_kind("x__READ__"), ZKC__RW_OTHER);
  assert_int_equal(zkc__rw_kind(""), ZKC__RW_OTHER);
  assert_int_equal(zkc__rw_kind(NULL), ZKC__RW_OTHER);
}

/* A reader waits on the nearest writer before it, of either client; a
 * mutex node or an unknown sequenced child counts as a writer. */
static void reader_watches_nearest_writer(void **state) {
  (void)state;
  char *names[] = {"x__READ__0000000001", "y__lock__0000000002",
                   "x__READ__0000000003", "x__WRIT__0000000004",
                   "z-lock-0000000005",   "y__rlock__0000000006"};
  zkc__contender_t out[6];
  assert_int_equal(zkc__sort_contenders(names, 6, out), 6);
  assert_int_equal(zkc__rw_writer_before(out, 0), -1);
  assert_int_equal(zkc__rw_writer_before(out, 1), -1);
  assert_int_equal(zkc__rw_writer_before(out, 2), 1);
  assert_int_equal(zkc__rw_writer_before(out, 3), 1);
  assert_int_equal(zkc__rw_writer_before(out, 5), 4);
  assert_int_equal(zkc__rw_writer_before(out, 4), 3);
  char *readers[] = {"a__READ__0000000001", "b__rlock__0000000002"};
  assert_int_equal(zkc__sort_contenders(readers, 2, out), 2);
  assert_int_equal(zkc__rw_writer_before(out, 1), -1);
}

/* Children no well-behaved client makes. */
static void hostile_children_order(void **state) {
  (void)state;
  char *names[] = {
      "_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000005",
      "squatter-0000000003",        /* foreign prefix: a contender */
      "lock-0000000003",            /* duplicate sequence: tie by name */
      "no-sequence",                /* ignored */
      "lock-000000000x",            /* non-digit in the suffix: ignored */
      "lock-0000000004 ",           /* trailing byte: ignored */
      "lock-9999999999",            /* beyond int32: ignored */
      "lock-99999999990000000006",  /* only the last 10 digits count */
      "lock-00000000007",           /* a leading zero more: 7 */
      "lock--9999999999",           /* beyond int32, negative: ignored */
      "",                           /* empty: ignored */
      "0000000001",                 /* digits only: a contender */
  };
  size_t n = sizeof names / sizeof *names;
  zkc__contender_t out[12];
  assert_int_equal(zkc__sort_contenders(names, n, out), 6);
  const char *want[] = {"0000000001", "lock-0000000003", "squatter-0000000003",
                        names[0], "lock-99999999990000000006", "lock-00000000007"};
  for (size_t i = 0; i < 6; i++) assert_string_equal(out[i].name, want[i]);
  const char *err = zkp_sorted(names, n);
  if (err) fail_msg("%s", err);
}

/* 10,000 children: 1,000-byte names, foreign ones, duplicates and junk,
 * shuffled; the order must still be total and by sequence. */
static void ten_thousand_hostile_children(void **state) {
  (void)state;
  enum { N = 10000, LEN = 1000 };
  char **names = calloc(N, sizeof *names);
  unsigned r = 12345;
  for (int i = 0; i < N; i++) {
    names[i] = malloc(LEN + 1);
    r = r * 1103515245u + 12345u;
    int seq = (int)(r >> 8) % 5000; /* plenty of duplicates */
    int junk = i % 7 == 0;
    /* Filler, then "-lock-" and the sequence, 1,000 bytes in all. */
    memset(names[i], 'a' + i % 26, LEN);
    snprintf(names[i] + LEN - 16, 17, junk ? "-lock-00000x%04d" : "-lock-%010d", seq);
  }
  const char *err = zkp_sorted(names, N);
  if (err) fail_msg("%s", err);
  zkc__contender_t *out = malloc(N * sizeof *out);
  size_t m = zkc__sort_contenders(names, N, out);
  assert_int_equal(m, N - (N + 6) / 7);
  for (size_t i = 0; i < m; i++) assert_int_equal(strlen(out[i].name), LEN);
  free(out);
  for (int i = 0; i < N; i++) free(names[i]);
  free(names);
}

static void sequences_round_trip(void **state) {
  (void)state;
  const int32_t v[] = {0, 1, 42, 999999999, 1000000000, INT32_MAX, -1, -5,
                       -999999999, -1000000000, INT32_MIN};
  const char *prefixes[] = {"", "lock-", "x__lock__", "latch-", "a-b-"};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    for (size_t j = 0; j < sizeof prefixes / sizeof *prefixes; j++) {
      const char *err = zkp_sequence_round_trip(prefixes[j], v[i]);
      if (err) fail_msg("%s: %s%010d", err, prefixes[j], v[i]);
    }
}

static void protected_names(void **state) {
  (void)state;
  const char *uuid = "53345f98-9423-4e0c-a7b5-9f819e3ec2e1";
  const char *name = "_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000003";
  assert_true(zkc__is_protected_name(name));
  assert_true(zkc__name_has_uuid(name, uuid));
  assert_false(zkc__name_has_uuid(name, "00000000-9423-4e0c-a7b5-9f819e3ec2e1"));
  assert_false(zkc__is_protected_name("_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-"));
  assert_false(zkc__is_protected_name("_c_53345F98-9423-4e0c-a7b5-9f819e3ec2e1-lock-1"));
  assert_false(zkc__is_protected_name("lock-0000000001"));
  assert_false(zkc__is_protected_name(NULL));
  /* the uuid alone is not enough: the whole protected shape is asked */
  assert_false(zkc__name_has_uuid("_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1",
                                  uuid));
  assert_false(zkc__name_has_uuid("_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1x"
                                  "lock-0000000003", uuid));
  assert_false(zkc__name_has_uuid("x_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-"
                                  "lock-0000000003", uuid));
  assert_false(zkc__name_has_uuid("_c", uuid));
  assert_false(zkc__name_has_uuid("", uuid));
  assert_false(zkc__name_has_uuid(NULL, uuid));
}

static void uuid_format(void **state) {
  (void)state;
  unsigned char b[16];
  memset(b, 0xff, sizeof b);
  char out[37];
  zkc__uuid_format(b, out);
  assert_int_equal(strlen(out), 36);
  assert_string_equal(out, "ffffffff-ffff-4fff-bfff-ffffffffffff");
  char name[64];
  snprintf(name, sizeof name, "_c_%s-lock-0000000001", out);
  assert_true(zkc__is_protected_name(name));
}

static void path_helpers(void **state) {
  (void)state;
  char *p = zkc__path_join("/a/b", "c");
  assert_string_equal(p, "/a/b/c");
  free(p);
  p = zkc__path_parent("/a/b/c");
  assert_string_equal(p, "/a/b");
  free(p);
  p = zkc__path_parent("/a");
  assert_string_equal(p, "/");
  free(p);
  assert_null(zkc__path_parent("/"));
  assert_string_equal(zkc__basename("/a/b/lock-1"), "lock-1");
  assert_string_equal(zkc__basename("lock-1"), "lock-1");
}

static void error_table(void **state) {
  (void)state;
  /* Every code of the one table: negative, zkcoord's own range, its name
   * spelled from the table, a message of its own. */
  static const struct {
    int code;
    const char *name;
  } table[] = {
#define ROW(name, value, msg) {ZKC_##name, "ZKC_" #name},
      ZKC_ERRNO_MAP(ROW)
#undef ROW
  };
  size_t n = sizeof table / sizeof *table;
  assert_true(n >= 26);
  for (size_t i = 0; i < n; i++) {
    assert_true(table[i].code <= -1000);
    assert_string_equal(zkc_err_name(table[i].code), table[i].name);
    assert_string_not_equal(zkc_strerror(table[i].code), "unknown error code");
    for (size_t j = 0; j < i; j++) {
      assert_int_not_equal(table[i].code, table[j].code);
      assert_string_not_equal(zkc_strerror(table[i].code),
                              zkc_strerror(table[j].code));
    }
  }
  assert_string_equal(zkc_err_name(ZKC_OK), "ZKC_OK");
  assert_string_equal(zkc_strerror(ZKC_OK), "success");
  /* A code that is not zkcoord's (ZooKeeper's -4, say) is not passed off
   * as one. */
  const int unknown[] = {-4, -1, 12345, -999, -1029};
  for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
    assert_string_equal(zkc_err_name(unknown[i]), "UNKNOWN");
    assert_string_equal(zkc_strerror(unknown[i]), "unknown error code");
  }
}

/* Every ZooKeeper client code (ZOK, then -1 .. -130) becomes a code of the
 * table: nothing raw leaves the library. */
static void zookeeper_codes_translate_into_the_table(void **state) {
  (void)state;
  assert_int_equal(zkc__zk_error(0), ZKC_OK);
  for (int z = -1; z >= -130; z--) {
    int rc = zkc__zk_error(z);
    if (strcmp(zkc_err_name(rc), "UNKNOWN") == 0)
      fail_msg("ZooKeeper code %d became %d, not in the table", z, rc);
  }
  assert_int_equal(zkc__zk_error(-4), ZKC_ECONNLOSS);   /* ZCONNECTIONLOSS */
  assert_int_equal(zkc__zk_error(-101), ZKC_ENONODE);   /* ZNONODE */
  assert_int_equal(zkc__zk_error(-102), ZKC_ENOAUTH);   /* ZNOAUTH */
  assert_int_equal(zkc__zk_error(-112), ZKC_ESESSIONEXPIRED);
  assert_int_equal(zkc__zk_error(-110), ZKC_ENODEEXISTS);
}

/* The loaded library and these headers are the same version. */
static void version_matches_headers(void **state) {
  (void)state;
  assert_int_equal(zkc_version(), ZKC_VERSION_HEX);
  assert_string_equal(zkc_version_string(), ZKC_VERSION_STRING);
}

/* A child's read-write lock bit is what zkc__node_kind names it: "read"
 * or "write", not "exclusive" (child_layout decides without asking it). */
static void layout_rw_bit_is_the_node_kind(void **state) {
  (void)state;
  const char *markers[] = {"",         "lock-",    "__lock__", "__WRIT__",
                           "__READ__", "__rlock__", "latch-",  "x__WRIT__y",
                           "__READ__lock-", "lock-__WRIT__", "__WRIT____READ__",
                           "__READ____lock__", "-", "__"};
  const char *seqs[] = {"0000000001", "-000000005", "-2147483648", "000000001",
                        "0000000001x", ""};
  for (size_t i = 0; i < sizeof markers / sizeof *markers; i++)
    for (size_t j = 0; j < sizeof seqs / sizeof *seqs; j++) {
      char n[128];
      snprintf(n, sizeof n, "_c_0f8e2a46-3b7c-4d1e-9a5b-6c7d8e9f0a1b-%s%s",
               markers[i], seqs[j]);
      const char *kind = zkc__node_kind(n);
      unsigned bits = zkc__child_layout(n, 1);
      /* no sequence, or a latch's: no lock's kind */
      if (kind == NULL || (bits & ZKC_LAYOUT_ELECTION)) continue;
      int rw = strcmp(kind, "exclusive") != 0;
      if (((bits & ZKC_LAYOUT_RWLOCK) != 0) != rw)
        fail_msg("%s: kind %s, layout bits %#x", n, kind, bits);
    }
}

/* The one node-kind rule: which recipe a child of a path belongs to, for
 * zkcoord's, Curator's, kazoo's and go-zookeeper's names. */
static void layouts_of_children(void **state) {
  (void)state;
  const char *u = "_c_0f8e2a46-3b7c-4d1e-9a5b-6c7d8e9f0a1b-";
  char n[128];
  snprintf(n, sizeof n, "%slock-0000000007", u);
  const unsigned K = ZKC__LAYOUT_KNOWN_LOCK;
  assert_int_equal(zkc__child_layout(n, 1),
                   ZKC_LAYOUT_LOCK | ZKC_LAYOUT_MUTEX | K);
  snprintf(n, sizeof n, "%s__WRIT__0000000007", u);
  assert_int_equal(zkc__child_layout(n, 1),
                   ZKC_LAYOUT_LOCK | ZKC_LAYOUT_RWLOCK | K);
  snprintf(n, sizeof n, "%s__READ__0000000008", u);
  assert_int_equal(zkc__child_layout(n, 1),
                   ZKC_LAYOUT_LOCK | ZKC_LAYOUT_RWLOCK | K);
  snprintf(n, sizeof n, "%slatch-0000000009", u);
  assert_int_equal(zkc__child_layout(n, 1), ZKC_LAYOUT_ELECTION);
  snprintf(n, sizeof n, "%slatch--2147483648", u); /* after the wrap */
  assert_int_equal(zkc__child_layout(n, 1), ZKC_LAYOUT_ELECTION);
  /* kazoo: Lock and WriteLock share "__lock__" (exclusive: neither a
   * plain lock's nor a read-write lock's), ReadLock's is a reader's */
  assert_int_equal(zkc__child_layout(
                       "0123456789abcdef0123456789abcdef__lock__0000000001", 1),
                   ZKC_LAYOUT_LOCK | K);
  assert_int_equal(
      zkc__child_layout("0123456789abcdef0123456789abcdef__rlock__0000000001",
                        1),
      ZKC_LAYOUT_LOCK | ZKC_LAYOUT_RWLOCK | K);
  /* go-zookeeper: "_c_<32 hex>-lock-<seq>" */
  assert_int_equal(
      zkc__child_layout("_c_0123456789abcdef0123456789abcdef-lock-0000000002",
                        1),
      ZKC_LAYOUT_LOCK | ZKC_LAYOUT_MUTEX | K);
  /* a marker counts right before the sequence only */
  assert_int_equal(zkc__child_layout("lock-x__READ__0000000004", 1),
                   ZKC_LAYOUT_LOCK | ZKC_LAYOUT_RWLOCK | K);
  assert_int_equal(zkc__child_layout("__READ__x-lock-0000000004", 1),
                   ZKC_LAYOUT_LOCK | ZKC_LAYOUT_MUTEX | K);
  assert_int_equal(zkc__child_layout("lock-0000000001x", 1), 0);
  /* a squatter, ZooKeeper's own recipe: in the queue, of no known lock */
  assert_int_equal(zkc__child_layout("foreign-0000000000", 1), ZKC_LAYOUT_LOCK);
  assert_int_equal(zkc__child_layout("x-72057594037927936-0000000003", 1),
                   ZKC_LAYOUT_LOCK);
  /* semaphores: Curator's V2 children, kazoo's lease nodes (ephemeral) */
  assert_int_equal(zkc__child_layout("locks", 0), ZKC_LAYOUT_SEMAPHORE);
  assert_int_equal(zkc__child_layout("leases", 0), ZKC_LAYOUT_SEMAPHORE);
  assert_int_equal(zkc__child_layout("0123456789abcdef0123456789abcdef", 1),
                   ZKC_LAYOUT_KAZOO_SEMAPHORE);
  assert_int_equal(zkc__child_layout("0123456789abcdef0123456789abcdef", -1),
                   ZKC_LAYOUT_KAZOO_SEMAPHORE);
  assert_int_equal(zkc__child_layout("0123456789abcdef0123456789abcdef", 0), 0);
  /* a lease whose uuid ends in ten decimal digits is still a lease */
  assert_int_equal(zkc__child_layout("0123456789abcdef0123451234567890", 1),
                   ZKC_LAYOUT_KAZOO_SEMAPHORE);
  /* no recipe's: a data node, a name without a sequence */
  assert_int_equal(zkc__child_layout("config", 1), 0);
  assert_int_equal(zkc__child_layout("lease", 0), 0);
  assert_int_equal(zkc__child_layout(NULL, 0), 0);
  /* the kinds zkc_contender_t.kind shows */
  snprintf(n, sizeof n, "%s__WRIT__0000000007", u);
  assert_string_equal(zkc__node_kind(n), "write");
  assert_string_equal(
      zkc__node_kind("0123456789abcdef0123456789abcdef__lock__0000000001"),
      "exclusive");
  assert_null(zkc__node_kind("locks"));
  /* the public face of the rule */
  zkc_contender_t e = {.name = "leases"};
  assert_int_equal(zkc_contender_layout(&e), ZKC_LAYOUT_SEMAPHORE);
  e.name = "0123456789abcdef0123456789abcdef__lock__0000000001";
  assert_int_equal(zkc_contender_layout(&e),
                   ZKC_LAYOUT_LOCK); /* no private bit */
  e.name = "_c_0123456789abcdef0123456789abcdef-lock-0000000002";
  assert_int_equal(zkc_contender_layout(&e),
                   ZKC_LAYOUT_LOCK | ZKC_LAYOUT_MUTEX);
  assert_int_equal(zkc_contender_layout(NULL), 0);
}

/* Which layouts each recipe refuses to share a path with. */
static void layouts_refused_by_recipe(void **state) {
  (void)state;
  const unsigned K = ZKC__LAYOUT_KNOWN_LOCK;
  unsigned lock = ZKC_LAYOUT_LOCK | ZKC_LAYOUT_MUTEX | K,
           rw = ZKC_LAYOUT_LOCK | ZKC_LAYOUT_RWLOCK | K;
  unsigned squatter = ZKC_LAYOUT_LOCK;
  unsigned sem = ZKC_LAYOUT_SEMAPHORE, ksem = ZKC_LAYOUT_KAZOO_SEMAPHORE;
  unsigned elect = ZKC_LAYOUT_ELECTION;
  assert_int_equal(zkc__layout_refused(ZKC__AS_LOCK, lock), 0);
  assert_int_equal(zkc__layout_refused(ZKC__AS_LOCK, lock | sem), sem);
  assert_int_equal(zkc__layout_refused(ZKC__AS_LOCK, ksem), ksem);
  assert_int_equal(zkc__layout_refused(ZKC__AS_LOCK, elect), elect);
  assert_int_equal(zkc__layout_refused(ZKC__AS_ELECTION, elect), 0);
  assert_int_equal(zkc__layout_refused(ZKC__AS_ELECTION, elect | lock), K);
  assert_int_equal(zkc__layout_refused(ZKC__AS_ELECTION, elect | squatter), 0);
  assert_int_equal(zkc__layout_refused(ZKC__AS_SEMAPHORE, sem | squatter), 0);
  assert_int_equal(zkc__layout_refused(ZKC__AS_ELECTION, sem), sem);
  assert_int_equal(zkc__layout_refused(ZKC__AS_SEMAPHORE, sem), 0);
  assert_int_equal(zkc__layout_refused(ZKC__AS_SEMAPHORE, sem | lock), K);
  assert_int_equal(zkc__layout_refused(ZKC__AS_SEMAPHORE, rw), K);
  assert_int_equal(zkc__layout_refused(ZKC__AS_SEMAPHORE, elect), elect);
  assert_int_equal(zkc__layout_refused(ZKC__AS_SEMAPHORE, ksem), ksem);
  assert_int_equal(zkc__layout_refused(ZKC__AS_NONE, sem | lock | elect), 0);
  assert_non_null(strstr(zkc__layout_what(sem), "semaphore"));
  assert_non_null(strstr(zkc__layout_what(elect), "election"));
  assert_non_null(strstr(zkc__layout_what(K), "lock nodes"));
}

/* A plain lock and a read-write lock refuse each other's nodes, but not
 * what cannot be told apart (kazoo's "__lock__", a squatter's), with
 * which both queue. */
static void plain_and_read_write_locks_refuse_each_other(void **state) {
  (void)state;
  const unsigned K = ZKC__LAYOUT_KNOWN_LOCK;
  unsigned mutex = zkc__child_layout(
      "_c_0f8e2a46-3b7c-4d1e-9a5b-6c7d8e9f0a1b-lock-0000000001", -1);
  unsigned writer = zkc__child_layout(
      "_c_0f8e2a46-3b7c-4d1e-9a5b-6c7d8e9f0a1b-__WRIT__0000000002", -1);
  unsigned reader = zkc__child_layout(
      "_c_0f8e2a46-3b7c-4d1e-9a5b-6c7d8e9f0a1b-__READ__0000000003", -1);
  unsigned k_reader = zkc__child_layout(
      "0123456789abcdef0123456789abcdef__rlock__0000000004", -1);
  unsigned k_lock = zkc__child_layout(
      "0123456789abcdef0123456789abcdef__lock__0000000005", -1);
  unsigned squatter = zkc__child_layout("x-72057594037927936-0000000006", -1);
  /* a plain lock (mutex, selector, async acquire) */
  assert_int_equal(zkc__layout_refused(ZKC__AS_LOCK, mutex), 0);
  assert_int_equal(zkc__layout_refused(ZKC__AS_LOCK, writer), ZKC_LAYOUT_RWLOCK);
  assert_int_equal(zkc__layout_refused(ZKC__AS_LOCK, reader), ZKC_LAYOUT_RWLOCK);
  assert_int_equal(zkc__layout_refused(ZKC__AS_LOCK, mutex | k_reader),
                   ZKC_LAYOUT_RWLOCK);
  assert_int_equal(zkc__layout_refused(ZKC__AS_LOCK, mutex | k_lock | squatter),
                   0);
  /* either side of a read-write lock */
  assert_int_equal(zkc__layout_refused(ZKC__AS_RWLOCK, writer | reader), 0);
  assert_int_equal(zkc__layout_refused(ZKC__AS_RWLOCK, k_reader | k_lock), 0);
  assert_int_equal(zkc__layout_refused(ZKC__AS_RWLOCK, squatter), 0);
  assert_int_equal(zkc__layout_refused(ZKC__AS_RWLOCK, reader | mutex),
                   ZKC_LAYOUT_MUTEX);
  assert_int_equal(
      zkc__layout_refused(ZKC__AS_RWLOCK, ZKC_LAYOUT_SEMAPHORE | mutex),
      ZKC_LAYOUT_SEMAPHORE);
  assert_int_equal(zkc__layout_refused(ZKC__AS_RWLOCK, ZKC_LAYOUT_ELECTION),
                   ZKC_LAYOUT_ELECTION);
  /* the others see lock nodes of either kind alike */
  assert_int_equal(zkc__layout_refused(ZKC__AS_ELECTION, mutex), K);
  assert_int_equal(zkc__layout_refused(ZKC__AS_SEMAPHORE, reader), K);
  /* which layout each recipe's own marker keeps */
  assert_int_equal(zkc__marker_layout("lock-"), ZKC__AS_LOCK);
  assert_int_equal(zkc__marker_layout("__WRIT__"), ZKC__AS_RWLOCK);
  assert_int_equal(zkc__marker_layout("__READ__"), ZKC__AS_RWLOCK);
  assert_int_equal(zkc__marker_layout("latch-"), ZKC__AS_ELECTION);
  assert_non_null(strstr(zkc__layout_what(ZKC_LAYOUT_RWLOCK), "read-write"));
  assert_non_null(strstr(zkc__layout_what(ZKC_LAYOUT_MUTEX), "plain lock"));
  assert_string_equal(zkc__layout_as_what(ZKC__AS_RWLOCK), "a read-write lock");
}

/* The rule's public face (zkc_layout_refusal, which the CLI applies) gives
 * the recipes' own answers over a path's children, without the private
 * bit, and names what it refuses. */
static void layout_refusal_is_the_recipes_rule(void **state) {
  (void)state;
  zkc_contender_t lock[] = {
      {.name = "_c_0123456789abcdef0123456789abcdef-lock-0000000001"}};
  zkc_contender_t squat[] = {{.name = "x-72057594037927936-0000000003"}};
  zkc_contender_t sem[] = {{.name = "leases"}, {.name = "locks"}};
  zkc_contender_t ksem[] = {
      {.name = "0123456789abcdef0123456789abcdef", .ephemeral_owner = 7}};
  zkc_contender_t latch[] = {
      {.name = "_c_0123456789abcdef0123456789abcdef-latch-0000000002"}};
  const char *what = NULL;
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_MUTEX, lock, 1, &what), 0);
  assert_null(what);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_MUTEX, sem, 2, &what),
                   ZKC_LAYOUT_SEMAPHORE);
  assert_non_null(strstr(what, "semaphore"));
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_MUTEX, ksem, 1, NULL),
                   ZKC_LAYOUT_KAZOO_SEMAPHORE);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_MUTEX, latch, 1, &what),
                   ZKC_LAYOUT_ELECTION);
  assert_non_null(strstr(what, "election"));
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_SEMAPHORE, lock, 1, &what),
                   ZKC_LAYOUT_LOCK);
  assert_non_null(strstr(what, "lock nodes"));
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_LATCH, lock, 1, NULL),
                   ZKC_LAYOUT_LOCK);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_LATCH, sem, 2, NULL),
                   ZKC_LAYOUT_SEMAPHORE);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_SEMAPHORE, latch, 1, NULL),
                   ZKC_LAYOUT_ELECTION);
  /* a squatter's sequenced node queues with a latch and a semaphore */
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_SEMAPHORE, squat, 1, NULL), 0);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_LATCH, squat, 1, NULL), 0);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_MUTEX, squat, 1, NULL), 0);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_MUTEX, NULL, 0, NULL), 0);
  /* the plain and the read-write lock, each other's */
  zkc_contender_t rw[] = {
      {.name = "0123456789abcdef0123456789abcdef__rlock__0000000004"}};
  zkc_contender_t klock[] = {
      {.name = "0123456789abcdef0123456789abcdef__lock__0000000005"}};
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_MUTEX, rw, 1, &what),
                   ZKC_LAYOUT_RWLOCK);
  assert_non_null(strstr(what, "read-write"));
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_WRITE, lock, 1, &what),
                   ZKC_LAYOUT_MUTEX);
  assert_non_null(strstr(what, "plain lock"));
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_WRITE, rw, 1, NULL), 0);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_WRITE, klock, 1, NULL), 0);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_MUTEX, klock, 1, NULL), 0);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_WRITE, sem, 2, NULL),
                   ZKC_LAYOUT_SEMAPHORE);
  assert_int_equal(zkc_layout_refusal((zkc_recipe_t)99, sem, 2, NULL), 0);
  /* the one enum's other recipes: a read side is a read-write lock, a
   * selector and an async acquire plain locks, a multi-lock none */
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_READ, lock, 1, NULL),
                   ZKC_LAYOUT_MUTEX);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_READ, rw, 1, NULL), 0);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_SELECTOR, rw, 1, NULL),
                   ZKC_LAYOUT_RWLOCK);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_ASYNC, latch, 1, NULL),
                   ZKC_LAYOUT_ELECTION);
  assert_int_equal(zkc_layout_refusal(ZKC_RECIPE_MULTILOCK, sem, 2, NULL), 0);
}

/* Every refused path says why, naming the offending byte where there is
 * one; an accepted path has no problem. */
static void path_problems(void **state) {
  (void)state;
  char buf[ZKC__PROBLEM_MAX];
  const struct {
    const char *path, *why;
  } v[] = {
      {"locks/a", "must be absolute"},
      {"/", "'/' itself"},
      {"/a/", "must not end with '/'"},
      {"/a//b", "empty segment"},
      {"/a/../b", "'.' or '..' segment"},
      {"/zookeeper/x", "server's own subtree"},
      {"/a\x01", "control character (byte 2)"},
      {"/a\xff", "byte 2 is not valid UTF-8"},
      {"/\xef\xbf\xbf", "U+FFFF (byte 1)"},
      {NULL, "NULL"},
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    const char *why = zkc__path_problem(v[i].path, buf, sizeof buf);
    if (why == NULL || strstr(why, v[i].why) == NULL)
      fail_msg("path %zu: got '%s', want '%s'", i, why ? why : "(none)",
               v[i].why);
    assert_int_equal(zkc__path_validate(v[i].path), ZKC_EINVAL);
  }
  char longp[ZKC__PATH_MAX + 2];
  memset(longp, 'a', sizeof longp - 1);
  longp[0] = '/';
  longp[sizeof longp - 1] = '\0';
  assert_non_null(
      strstr(zkc__path_problem(longp, buf, sizeof buf), "1025 bytes"));
  assert_null(zkc__path_problem("/locks/job-1", buf, sizeof buf));
}

/* Host lists: the reason of a refusal; a server without a port gets 2181
 * (ZooKeeper's Java client, Curator and kazoo do the same). */
static void connect_strings(void **state) {
  (void)state;
  char buf[ZKC__PROBLEM_MAX];
  assert_non_null(strstr(zkc__hosts_problem("a:1,b:x", buf, sizeof buf),
                         "server 'b:x' has no valid port"));
  assert_non_null(strstr(zkc__hosts_problem("a:1,,b:2", buf, sizeof buf),
                         "empty server entry"));
  assert_non_null(
      strstr(zkc__hosts_problem("a b:1", buf, sizeof buf), "byte 1"));
  assert_non_null(strstr(zkc__hosts_problem("", buf, sizeof buf), "no server"));
  assert_null(zkc__hosts_problem("a:1,b:2/x", buf, sizeof buf));
  const struct {
    const char *in, *out;
  } v[] = {
      {"localhost", "localhost:2181"},
      {"a,b:2182,c", "a:2181,b:2182,c:2181"},
      {"a/chroot/x", "a:2181/chroot/x"},
      {"a:1,b:2/x", "a:1,b:2/x"},
      {"a:", "a:"}, /* a colon without a port: refused after, with why */
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    char *got = zkc__connect_with_ports(v[i].in);
    assert_non_null(got);
    assert_string_equal(got, v[i].out);
    free(got);
  }
}

static int sink_calls;
static char sink_line[512];
static zkc_log_level_t sink_level;
static void sink(void *ctx, zkc_log_level_t level, const char *msg) {
  (void)ctx;
  sink_calls++;
  sink_level = level;
  snprintf(sink_line, sizeof sink_line, "%s", msg);
}

/* zkc_client_open says why it refuses (no server needed: nothing is
 * contacted), to the thread and through the options' log sink. */
static void open_refusals_say_why(void **state) {
  (void)state;
  zkc_client_opts_t o;
  zkc_client_opts_init(&o);
  o.log_fn = sink;
  zkc_client_t *c = (zkc_client_t *)1;
  const struct {
    const char *connect;
    int session_ms;
    const char *why;
  } v[] = {
      {"localhost:0", 10000, "server 'localhost:0' has no valid port"},
      {"a:1/locks/", 10000,
       "chroot '/locks/' is invalid: it must not end with '/'"},
      {NULL, 10000, "connect_string is NULL"},
      {"a:1", 0, "invalid options: session_timeout_ms must be above 0"},
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    sink_calls = 0;
    o.session_timeout_ms = v[i].session_ms;
    assert_int_equal(zkc_client_open(&c, v[i].connect, &o), ZKC_EINVAL);
    assert_null(c);
    const char *m = zkc_last_error_message();
    if (strncmp(m, "zkc_client_open: ", 17) != 0 || strstr(m, v[i].why) == NULL)
      fail_msg("case %zu: message '%s', want '%s'", i, m, v[i].why);
    assert_int_equal(sink_calls, 1);
    assert_int_equal(sink_level, ZKC_LOG_ERROR);
    assert_string_equal(sink_line, m);
  }
  /* NULL out: refused first, named in the message. */
  assert_int_equal(zkc_client_open(NULL, "a:1", &o), ZKC_EINVAL);
  assert_string_equal(zkc_last_error_message(), "zkc_client_open: out is NULL");
  /* A level of NONE silences the sink, not the message. */
  o.log_level = ZKC_LOG_NONE;
  o.session_timeout_ms = 10000;
  sink_calls = 0;
  assert_int_equal(zkc_client_open(&c, "a:x", &o), ZKC_EINVAL);
  assert_int_equal(sink_calls, 0);
  assert_non_null(strstr(zkc_last_error_message(), "'a:x'"));
}

/* The message is the thread's own. */
static void *other_thread_message(void *arg) {
  (void)arg;
  return (void *)zkc_last_error_message();
}
static void last_error_is_per_thread(void **state) {
  (void)state;
  zkc_mutex_t *m = (zkc_mutex_t *)1;
  assert_int_equal(zkc_mutex_create(&m, NULL, "/a"), ZKC_EINVAL);
  assert_non_null(strstr(zkc_last_error_message(), "zkc_mutex_create"));
  pthread_t t;
  void *got = NULL;
  assert_int_equal(pthread_create(&t, NULL, other_thread_message, NULL), 0);
  pthread_join(t, &got);
  assert_string_equal((const char *)got, "");
}

/* The shared count's bytes (Curator's SharedCount): 4, big-endian,
 * signed, and nothing else read as a count. */
static void shared_count_codec(void **state) {
  (void)state;
  char b[ZKC__COUNT_BYTES];
  zkc__sem_count_encode(0x01020304, b);
  assert_memory_equal(b, "\x01\x02\x03\x04", 4);
  zkc__sem_count_encode(-2, b);
  assert_memory_equal(b, "\xff\xff\xff\xfe", 4);
  const int32_t values[] = {0, 1, -1, 5, INT32_MAX, INT32_MIN};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    int32_t v = 7;
    zkc__sem_count_encode(values[i], b);
    assert_int_equal(zkc__sem_count_decode(b, 4, &v), ZKC_OK);
    assert_int_equal(v, values[i]);
  }
  int32_t v = 7;
  assert_int_equal(zkc__sem_count_decode(b, 3, &v), ZKC_EPROTO);
  assert_int_equal(zkc__sem_count_decode("12345", 5, &v), ZKC_EPROTO);
  assert_int_equal(zkc__sem_count_decode("", 0, &v), ZKC_EPROTO);
  assert_int_equal(v, 7); /* untouched when refused */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(valid_paths),
      cmocka_unit_test(zookeeper_codes_translate_into_the_table),
      cmocka_unit_test(version_matches_headers),
      cmocka_unit_test(invalid_paths),
      cmocka_unit_test(path_length_limit),
      cmocka_unit_test(host_lists),
      cmocka_unit_test(id_length_limit),
      cmocka_unit_test(sequences_of_known_recipes),
      cmocka_unit_test(sequences_after_wrap),
      cmocka_unit_test(names_without_sequence),
      cmocka_unit_test(sort_by_sequence_not_prefix),
      cmocka_unit_test(sort_across_wrap),
      cmocka_unit_test(sort_near_but_not_across_wrap),
      cmocka_unit_test(duplicate_sequences_tie_by_name),
      cmocka_unit_test(hostile_children_order),
      cmocka_unit_test(rw_kinds),
      cmocka_unit_test(reader_watches_nearest_writer),
      cmocka_unit_test(ten_thousand_hostile_children),
      cmocka_unit_test(sequences_round_trip),
      cmocka_unit_test(protected_names),
      cmocka_unit_test(uuid_format),
      cmocka_unit_test(path_helpers),
      cmocka_unit_test(error_table),
      cmocka_unit_test(layouts_of_children),
      cmocka_unit_test(layouts_refused_by_recipe),
      cmocka_unit_test(plain_and_read_write_locks_refuse_each_other),
      cmocka_unit_test(layout_refusal_is_the_recipes_rule),
      cmocka_unit_test(path_problems),
      cmocka_unit_test(connect_strings),
      cmocka_unit_test(open_refusals_say_why),
      cmocka_unit_test(last_error_is_per_thread),
      cmocka_unit_test(shared_count_codec),
      cmocka_unit_test(layout_rw_bit_is_the_node_kind),
  };
  return cmocka_run_group_tests_name("names", tests, NULL, NULL);
}
