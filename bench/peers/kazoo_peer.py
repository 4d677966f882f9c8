#!/usr/bin/env python3
"""kazoo's Lock in the peer protocol of bench/run.sh (bench/peers/README.md):
one round of each measure, one session (KazooClient) per worker thread."""
import logging
import sys
import threading
import time

from kazoo.client import KazooClient

logging.disable(logging.CRITICAL)


def quantile(v, q):
    if not v:
        return -1
    v.sort()
    return v[int(q * (len(v) - 1))]


def run(connect, root, measure, n, shared, round_ms):
    clients = [KazooClient(hosts=connect, timeout=10.0) for _ in range(n)]
    for c in clients:
        c.start(timeout=30)
    mu = threading.Lock()
    state = {"count": 0, "last": None, "handoffs": []}
    warm = time.monotonic_ns() + round_ms // 5 * 1000000
    end = warm + round_ms * 1000000

    def worker(i):
        path = "%s/%s-%d" % (root, measure, n)
        if not shared:
            path += "/%d" % i
        lock = clients[i].Lock(path, "w%d" % i)
        while time.monotonic_ns() < end:
            lock.acquire()
            t = time.monotonic_ns()
            with mu:
                if warm < t < end:
                    state["count"] += 1
                    if shared and state["last"] is not None:
                        state["handoffs"].append((t - state["last"]) / 1e3)
                if shared:
                    state["last"] = time.monotonic_ns()
            lock.release()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in clients:
        c.stop()
        c.close()
    rate = state["count"] / (round_ms / 1e3)
    p50 = p99 = -1
    if shared and n > 1:
        p50 = quantile(state["handoffs"], 0.5)
        p99 = quantile(state["handoffs"], 0.99)
    print("M,%s,%d,%.1f,%.0f,%.0f" % (measure, n, rate, p50, p99), flush=True)


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: kazoo_peer.py CONNECT ROOT ROUND_MS [MEASURE:N...]")
    connect, root, round_ms = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for m in sys.argv[4:]:
        name, n = m.split(":")
        run(connect, root, name, int(n), name != "paths", round_ms)


if __name__ == "__main__":
    main()
