#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kazoo_contender: a small kazoo (Python) client used by zkcoord's C integration tests to show
that kazoo's read-write lock and zkcoord's (and Curator's) share one queue on a lock path.

Run it through test/interop/run-kazoo.sh, which finds a Python 3 that has kazoo (Debian's
python3-kazoo is installed for the system interpreter, which a pyenv or venv python3 first on
PATH may lack).

kazoo's default read-write nodes (<hex>__lock__<seq>, <hex>__rlock__<seq>) are invisible to
Curator, so the locks here are kazoo's ReadLock and WriteLock renamed to Curator's node names
(the "subclass the node name" way of the interop notes on mixed read-write queues):
    writer: _NODE_NAME = "__WRIT__", _EXCLUDE_NAMES = ["__WRIT__", "__READ__"]
    reader: _NODE_NAME = "__READ__", _EXCLUDE_NAMES = ["__WRIT__"]
giving <hex>__WRIT__<seq> and <hex>__READ__<seq>, which Curator and zkcoord order and classify.

kazoo before 2.9.0 (Debian bookworm ships 2.8.0) has a reader deadlock (kazoo #649, fixed by #650
in 2.9.0): a reader whose own node does not match its pattern takes the last writer of the whole
queue as its predecessor, later writers included, so a reader and a writer queued after it wait
for each other. Before 2.9.0 the classes below carry 2.9.0's rule (only contenders with a smaller
sequence count), so the test exercises the node protocol rather than that bug.

Modes

  rwlock <connectString> <lockPath> <read|write> <iterations> <holdMillis>
      Take the read or the write lock on <lockPath> <iterations> times in a row, holding it
      <holdMillis>. Output lines (stdout, one per event):
        HELD <read|write> <ownNodePath> <startNanos> <endNanos>   one per cycle;
                                            time.monotonic_ns(), which is CLOCK_MONOTONIC on Linux
        DONE acquired=<n>

  native <connectString> <lockPath> <read|write|lock> <iterations> <holdMillis>
      As rwlock, with kazoo's own ReadLock, WriteLock or Lock and their own node names
      (<hex>__rlock__<seq>, <hex>__lock__<seq>, <hex>__lock__<seq>): the layouts zkcoord must
      tell apart from its own, or cannot. Output lines as rwlock's, with the kind asked.

Node data is the identifier "kazoo:<pid>".

Exit codes: 0 success; 1 unexpected exception (traceback on stderr); 2 not connected within
20 s; 64 bad command line.

Client settings: session timeout 10 s. Connection state changes other than CONNECTED, before
the client is stopped, are reported on stderr as "STATE <state>" to help diagnose failing tests.
"""
import logging
import os
import sys
import time

import kazoo.version
from kazoo.client import KazooClient
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import KazooState
from kazoo.recipe.lock import Lock, ReadLock, WriteLock
from kazoo.retry import ForceRetryError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_NOT_CONNECTED = 2
EXIT_USAGE = 64

SESSION_TIMEOUT_S = 10.0
CONNECT_WAIT_S = 20.0

USAGE = ("usage:\n  kazoo_contender.py rwlock <connectString> <lockPath> <read|write> <iterations> <holdMillis>"
         "\n  kazoo_contender.py native <connectString> <lockPath> <read|write|lock> <iterations> <holdMillis>")


class Usage(Exception):
    pass


def _version(text):
    parts = []
    for p in text.split("."):
        digits = "".join(c for c in p if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


OLD_KAZOO = _version(kazoo.version.__version__) < (2, 9, 0)


class _EarlierOnly:
    """kazoo 2.9.0's predecessor rule for older kazoo: the nearest contender of a kind that
    excludes us among those with a smaller sequence number (compared as strings, as kazoo does);
    our own node must still be listed (else retry: the session was lost)."""

    def _get_predecessor(self, node):
        own_sequence = node[len(self.prefix):]
        earlier = []
        listed = False
        for child in self.client.get_children(self.path):
            if child == node:
                listed = True
            m = self._contenders_re.search(child)
            if m is not None and m.group(1) < own_sequence:
                earlier.append(m)
        if not listed:
            raise ForceRetryError()
        if not earlier:
            return None
        return max(earlier, key=lambda m: m.groups()).string


_Base = (_EarlierOnly,) if OLD_KAZOO else ()


class CuratorNamedWriteLock(*_Base, WriteLock):
    _NODE_NAME = "__WRIT__"
    _EXCLUDE_NAMES = ["__WRIT__", "__READ__"]


class CuratorNamedReadLock(*_Base, ReadLock):
    _NODE_NAME = "__READ__"
    _EXCLUDE_NAMES = ["__WRIT__"]


def line(s):
    sys.stdout.write(s + "\n")
    sys.stdout.flush()


def non_negative(what, value):
    try:
        v = int(value)
        if v >= 0:
            return v
    except ValueError:
        pass
    raise Usage("%s must be a non-negative integer, got '%s'" % (what, value))


def _report_state(state):
    if state != KazooState.CONNECTED:
        sys.stderr.write("STATE %s\n" % state)


def start_client(connect):
    client = KazooClient(hosts=connect, timeout=SESSION_TIMEOUT_S)
    client.add_listener(_report_state)
    try:
        client.start(timeout=CONNECT_WAIT_S)
    except KazooTimeoutError:
        sys.stderr.write("kazoo_contender: not connected to %s within %d s\n"
                         % (connect, CONNECT_WAIT_S))
        sys.exit(EXIT_NOT_CONNECTED)
    return client


def stop_client(client):
    client.remove_listener(_report_state)
    client.stop()
    client.close()


CURATOR_NAMED = {"read": CuratorNamedReadLock, "write": CuratorNamedWriteLock}
NATIVE = {"read": ReadLock, "write": WriteLock, "lock": Lock}


def run_rwlock(args, classes):
    if len(args) != 6:
        raise Usage("%s needs 5 arguments" % args[0])
    connect, path, kind = args[1], args[2], args[3]
    if kind not in classes:
        raise Usage("the kind must be one of %s, got '%s'" % ("|".join(classes), kind))
    iterations = non_negative("iterations", args[4])
    hold_ms = non_negative("holdMillis", args[5])

    client = start_client(connect)
    try:
        lock = classes[kind](client, path, "kazoo:%d" % os.getpid())
        acquired = 0
        for _ in range(iterations):
            lock.acquire()
            start = time.monotonic_ns()
            acquired += 1
            try:
                own = path + "/" + lock.node
                if hold_ms > 0:
                    time.sleep(hold_ms / 1000.0)
                end = time.monotonic_ns()
                line("HELD %s %s %d %d" % (kind, own, start, end))
            finally:
                lock.release()
    finally:
        stop_client(client)
    line("DONE acquired=%d" % acquired)


def main(argv):
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        if len(argv) < 1:
            raise Usage("missing mode")
        if argv[0] == "rwlock":
            run_rwlock(argv, CURATOR_NAMED)
        elif argv[0] == "native":
            run_rwlock(argv, NATIVE)
        else:
            raise Usage("unknown mode '%s'" % argv[0])
    except Usage as e:
        sys.stderr.write("%s\n%s\n" % (e, USAGE))
        return EXIT_USAGE
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
