#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kazoo's Lock, ReadLock and WriteLock in the peer protocol of bench/run.sh
(bench/peers/README.md): one round of each measure, one session (KazooClient)
per worker thread. kazoo's Semaphore is not in Curator's layout: the sem*
measures print nothing here."""
import logging
import random
import re
import socket
import sys
import threading
import time

from kazoo.client import KazooClient
from kazoo.recipe.lock import LockTimeout

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


# ---- the recipe measures (rw*, rwherd*) ----


def notifications(connect):
    return mntr_counts(connect)[0]


def mntr_counts(connect):
    """(watch notifications fired so far on the servers of CONNECT: the sum
    of every zk_sum_node_*_watch_count of `mntr` over the servers; the sum of
    zk_packets_received: client requests, pings included)."""
    total = packets = 0.0
    for hp in connect.split(","):
        host, port = hp.rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(b"mntr")
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        for line in data.decode("ascii", "replace").splitlines():
            kv = line.split("\t")
            if len(kv) == 2 and kv[0].startswith("zk_sum_node_") and kv[0].endswith("_watch_count"):
                total += float(kv[1])
            if len(kv) == 2 and kv[0] == "zk_packets_received":
                packets += float(kv[1])
    return total, packets


def open_clients(connect, n):
    clients = [KazooClient(hosts=connect, timeout=10.0) for _ in range(n)]
    for c in clients:
        c.start(timeout=30)
    return clients


def close_clients(clients):
    for c in clients:
        c.stop()
        c.close()


def run_rw(connect, root, measure, n, round_ms, pct):
    """rwPCT:N: PCT % reads. An acquire waits at most 5 s (kazoo 2.8's
    reader can wait for a later writer, #649); a timeout is counted."""
    clients = open_clients(connect, n)
    path = "%s/%s-%d" % (root, measure, n)
    locks = [(c.ReadLock(path, "r%d" % i), c.WriteLock(path, "w%d" % i)) for i, c in enumerate(clients)]
    locks[0][1].acquire()  # one untimed cycle first (every peer does)
    locks[0][1].release()
    mu = threading.Lock()
    state = {"count": 0, "ops": 0, "timeouts": 0}
    n0, p0 = mntr_counts(connect)
    warm = time.monotonic_ns() + round_ms // 5 * 1000000
    end = warm + round_ms * 1000000

    def worker(i):
        rnd = random.Random(i * 7919 + 1)
        while time.monotonic_ns() < end:
            lock = locks[i][0] if rnd.randrange(100) < pct else locks[i][1]
            try:
                lock.acquire(timeout=5)
            except LockTimeout:
                with mu:
                    state["timeouts"] += 1
                continue
            t = time.monotonic_ns()
            with mu:
                if warm < t < end:
                    state["count"] += 1
                state["ops"] += 1
            lock.release()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(0.2)  # the last deletes' notifications
    n1, p1 = mntr_counts(connect)
    close_clients(clients)
    print("M,%s,%d,%.1f,-1,-1" % (measure, n, state["count"] / (round_ms / 1e3)))
    if state["ops"]:
        print("M,%s-notify,%d,%.3f,-1,-1" % (measure, n, (n1 - n0) / state["ops"]))
        print("M,%s-requests,%d,%.3f,-1,-1" % (measure, n, (p1 - p0) / state["ops"]))
    print("M,%s-timeouts,%d,%d,-1,-1" % (measure, n, state["timeouts"]), flush=True)


def run_herd(connect, root, measure, r, writers):
    """The reader herd: `writers` writers queued (the first holding), then r
    readers behind them; the writers release in turn until every reader
    holds. Prints the watch notifications fired meanwhile, per reader."""
    total = writers + r
    clients = open_clients(connect, total)
    path = "%s/%s-%d" % (root, measure, r)
    cv = threading.Condition()
    state = {"granted": 0}
    go = [False] * total

    def member(i):
        c = clients[i]
        lock = c.WriteLock(path, "w%d" % i) if i < writers else c.ReadLock(path, "r%d" % i)
        lock.acquire()
        with cv:
            state["granted"] += 1
            cv.notify_all()
            cv.wait_for(lambda: go[i])
        lock.release()

    def await_granted(want):
        with cv:
            if not cv.wait_for(lambda: state["granted"] >= want, timeout=60):
                sys.exit("herd: grants did not arrive")

    threads = []
    for i in range(total):
        t = threading.Thread(target=member, args=(i,))
        threads.append(t)
        t.start()
        for _ in range(5000):  # one at a time: the queue in this order
            if clients[0].exists(path) and len(clients[0].get_children(path)) >= i + 1:
                break
            time.sleep(0.002)
    await_granted(1)
    time.sleep(0.5)  # every waiter's watch set
    n0 = notifications(connect)
    for w in range(writers):
        await_granted(w + 1)
        time.sleep(0.1)
        with cv:
            go[w] = True
            cv.notify_all()
        threads[w].join()
    await_granted(total)
    time.sleep(0.3)
    n1 = notifications(connect)
    with cv:
        for i in range(total):
            go[i] = True
        cv.notify_all()
    for t in threads:
        t.join()
    close_clients(clients)
    print("M,%s,%d,%.3f,-1,-1" % (measure, r, (n1 - n0) / r), flush=True)


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: kazoo_peer.py CONNECT ROOT ROUND_MS [MEASURE:N...]")
    connect, root, round_ms = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for m in sys.argv[4:]:
        name, n = m.split(":")
        rw = re.fullmatch(r"rw(\d+)", name)
        if name in ("rwherd", "rwherd2"):
            run_herd(connect, root, name, int(n), 2 if name == "rwherd2" else 1)
        elif rw:
            run_rw(connect, root, name, int(n), round_ms, int(rw.group(1)))
        elif re.fullmatch(r"sem\d+k\d+", name):
            continue  # kazoo's Semaphore: another layout (README.md)
        else:
            run(connect, root, name, int(n), name != "paths", round_ms)


if __name__ == "__main__":
    main()
