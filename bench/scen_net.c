/* SPDX-License-Identifier: Apache-2.0 */
/* Scenario n: what the network costs, one raw session per server. A read
 * (exists) is one round trip on the client link; a write (create, then
 * delete) is that plus the quorum's. Each server is reached through its
 * address in the connect string (the client relay on a delayed ensemble)
 * and, when that is not the server's own port, also directly, the two
 * alternated request by request: the difference is the client link's
 * delay, and at a delay of zero the relay's own cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define US(ns) ((double)(ns) / 1e3)
enum { READ, CREATE, DELETE, M_COUNT };
static const char *const mname[M_COUNT] = {"read p50", "create p50", "delete p50"};

void scen_net(void) {
  const int per_round = cfg.quick ? 10 : 30;
  char hosts[3][64] = {{0}}, copy[256];
  /* Every server, even when the other scenarios' sessions are pinned to one
   * (bench/run.sh --pin). */
  const char *links = getenv("ZKC_BENCH_LINKS");
  snprintf(copy, sizeof copy, "%s", links && *links ? links : cfg.connect);
  int nh = 0;
  for (char *h = strtok(copy, ","); h && nh < 3; h = strtok(NULL, ","))
    snprintf(hosts[nh++], sizeof hosts[0], "%s", h);
  char base[200];
  snprintf(base, sizeof base, "%s/n", cfg.root);
  zhandle_t *admin = raw_open();
  raw_ensure(admin, base);
  for (int i = 0; i < nh; i++) {
    char direct[64], node[240];
    snprintf(direct, sizeof direct, "127.0.0.1:%d", cfg.port_base + i + 1);
    int both = strcmp(direct, hosts[i]) != 0; /* 0: the link is the port */
    zhandle_t *zh[2] = {raw_open_at(hosts[i]), both ? raw_open_at(direct) : NULL};
    double p50[2][M_COUNT][64];
    for (int r = 0; r < cfg.rounds; r++) {
      samples_t s[2][M_COUNT] = {{{0}}};
      for (int k = 0; k < per_round; k++) {
        for (int v = 0; v < 1 + both; v++) {
          struct Stat st;
          snprintf(node, sizeof node, "%s/s%d-%d", base, i + 1, v);
          int64_t t0 = now_ns();
          int rc = zoo_exists(zh[v], base, 0, &st);
          int64_t t1 = now_ns();
          if (rc == ZOK) rc = zoo_create(zh[v], node, "x", 1, &ZOO_OPEN_ACL_UNSAFE,
                                         ZOO_EPHEMERAL, NULL, 0);
          int64_t t2 = now_ns();
          if (rc == ZOK) rc = zoo_delete(zh[v], node, -1);
          int64_t t3 = now_ns();
          if (rc != ZOK) die("scenario n: %s", zerror(rc));
          samples_add(&s[v][READ], US(t1 - t0));
          samples_add(&s[v][CREATE], US(t2 - t1));
          samples_add(&s[v][DELETE], US(t3 - t2));
        }
      }
      for (int v = 0; v < 1 + both; v++)
        for (int m = 0; m < M_COUNT; m++) {
          p50[v][m][r] = samples_quantile(&s[v][m], 0.5);
          samples_free(&s[v][m]);
        }
    }
    for (int v = 0; v < 1 + both; v++) raw_close(zh[v]);
    int k = cfg.rounds;
    for (int m = 0; m < M_COUNT; m++) {
      emit("n", i + 1, mname[m], "link", "us", p50[0][m], k);
      if (!both) continue;
      double diff[64], ratio[64];
      for (int r = 0; r < k; r++) {
        diff[r] = p50[0][m][r] - p50[1][m][r];
        ratio[r] = p50[0][m][r] / p50[1][m][r];
      }
      emit("n", i + 1, mname[m], "direct", "us", p50[1][m], k);
      emit("n", i + 1, mname[m], "link-direct", "us", diff, k);
      emit("n", i + 1, mname[m], "link/direct", "x", ratio, k);
    }
  }
  raw_delete_tree(admin, base);
  raw_close(admin);
}
