// SPDX-License-Identifier: Apache-2.0
/*
 * CuratorContender: a small Apache Curator client used by zkcoord's C integration tests to show
 * that Curator (Java) and zkcoord (C) processes contending on the same ZooKeeper path interoperate.
 *
 * Build and run it through test/interop/run-curator.sh, which compiles this file against Debian's
 * Curator/ZooKeeper jars (see test/interop/curator-classpath.sh).
 *
 * Modes
 *
 *   mutex <connectString> <lockPath> <iterations> <holdMillis> <markerFile>
 *       Acquire an InterProcessMutex on <lockPath> <iterations> times in a row. While holding it,
 *       create <markerFile> exclusively (O_CREAT|O_EXCL semantics); if the file already exists,
 *       another process holds the lock at the same time. Sleep <holdMillis>, delete the marker,
 *       release. Output lines (stdout, one per event):
 *         PARTICIPANTS <path>,<path>,...      once, the first time more than one lock node exists
 *         HELD <ownNodePath> <startNanos> <endNanos>   one per cycle; System.nanoTime(), which is
 *                                             CLOCK_MONOTONIC on Linux
 *         OVERLAP                             marker already existed (then exit 3)
 *         DONE acquired=<n> saw_other=<true|false>
 *
 *   latch <connectString> <latchPath> <id> <holdMillis>
 *       Start a LeaderLatch with <id>, wait for leadership, hold it <holdMillis>, then close the
 *       latch (CloseMode.NOTIFY_LEADER). Output lines:
 *         LEADER <id> <startNanos>
 *         PARTICIPANTS <id>:<isLeader>,...
 *         DONE
 *
 *   semaphore <connectString> <semPath> <maxLeases> <iterations> <holdMillis>
 *       Take one lease of an InterProcessSemaphoreV2(<semPath>, <maxLeases>) <iterations> times in a
 *       row, holding it <holdMillis>. Output lines:
 *         HELD <leaseNodePath> <startNanos> <endNanos>   one per lease; System.nanoTime()
 *         DONE acquired=<n>
 *
 *   rwlock <connectString> <lockPath> <read|write> <iterations> <holdMillis>
 *       Take the read or the write side of an InterProcessReadWriteLock on <lockPath> <iterations>
 *       times in a row, holding it <holdMillis>. Exclusion is checked by the caller, from the
 *       intervals of every side. Output lines:
 *         HELD <read|write> <ownNodePath> <startNanos> <endNanos>   one per cycle; System.nanoTime()
 *         DONE acquired=<n>
 *
 *   revocable <connectString> <lockPath> <holdMaxMillis>
 *       Acquire an InterProcessMutex on <lockPath> made revocable (makeRevocable: its node has empty
 *       data and is watched for Curator's revocation marker). The listener only signals the holding
 *       thread, which releases (release is thread-bound in Curator). Output lines:
 *         HELD <ownNodePath>                  once held
 *         REVOKED <millis>                    released because a revocation was asked, <millis>
 *                                             after HELD (then exit 0)
 *         NOT_REVOKED                         nobody asked within <holdMaxMillis>: released (exit 4)
 *
 *   revoke <connectString> <nodePath>
 *       Revoker.attemptRevoke on the lock node <nodePath> (writes the marker "__REVOKE__" into its
 *       data; a missing node is no error). Output lines:
 *         REVOKE_SENT
 *
 * Exit codes: 0 success; 1 unexpected exception (stack trace on stderr); 2 not connected within
 * 20 s; 3 OVERLAP (mutual exclusion broken); 4 NOT_REVOKED; 64 bad command line.
 *
 * Client settings: session timeout 10000 ms, connection timeout 10000 ms,
 * ExponentialBackoffRetry(100 ms, 5 retries), default node data "curator:<pid>".
 * Connection state changes other than the initial CONNECTED are reported on stderr as
 * "STATE <state>" to help diagnose failing tests.
 */

import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorContender {

    static final int EXIT_OK = 0;
    static final int EXIT_ERROR = 1;
    static final int EXIT_NOT_CONNECTED = 2;
    static final int EXIT_OVERLAP = 3;
    static final int EXIT_NOT_REVOKED = 4;
    static final int EXIT_USAGE = 64;

    static final int SESSION_TIMEOUT_MS = 10000;
    static final int CONNECTION_TIMEOUT_MS = 10000;
    static final int CONNECT_WAIT_SECONDS = 20;
    /** How long we wait for client.close() before exiting anyway. */
    static final long CLOSE_WAIT_MS = 5000;

    static final PrintStream OUT = System.out;

    /** Thrown to leave main() with a specific exit code after cleanup. */
    static final class Exit extends Exception {
        final int code;

        Exit(int code, String message) {
            super(message);
            this.code = code;
        }
    }

    /** InterProcessMutex whose own lock node path (protected in Curator) is readable. */
    static final class VisibleMutex extends InterProcessMutex {
        VisibleMutex(CuratorFramework client, String path) {
            super(client, path);
        }

        String ownNodePath() {
            return getLockPath();
        }
    }

    /**
     * Own lock node of either side of an InterProcessReadWriteLock: getLockPath() is protected in
     * Curator 5.4 and the sides cannot be subclassed from outside the package.
     */
    private static String ownNodePath(InterProcessMutex side) throws Exception {
        Method m = InterProcessMutex.class.getDeclaredMethod("getLockPath");
        m.setAccessible(true);
        return (String) m.invoke(side);
    }

    private static void line(String s) {
        OUT.println(s);
        OUT.flush();
    }

    private static void usage(String why) throws Exit {
        throw new Exit(EXIT_USAGE, why + "\nusage:\n"
                + "  CuratorContender mutex <connectString> <lockPath> <iterations> <holdMillis> <markerFile>\n"
                + "  CuratorContender latch <connectString> <latchPath> <id> <holdMillis>\n"
                + "  CuratorContender semaphore <connectString> <semPath> <maxLeases> <iterations> <holdMillis>\n"
                + "  CuratorContender rwlock <connectString> <lockPath> <read|write> <iterations> <holdMillis>\n"
                + "  CuratorContender revocable <connectString> <lockPath> <holdMaxMillis>\n"
                + "  CuratorContender revoke <connectString> <nodePath>");
    }

    private static long parseNonNegative(String what, String value) throws Exit {
        try {
            long v = Long.parseLong(value);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        usage(what + " must be a non-negative integer, got '" + value + "'");
        return -1; // not reached
    }

    private static CuratorFramework startClient(String connectString) throws Exception {
        String data = "curator:" + ProcessHandle.current().pid();
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(CONNECTION_TIMEOUT_MS)
                .retryPolicy(new ExponentialBackoffRetry(100, 5))
                .defaultData(data.getBytes(StandardCharsets.UTF_8))
                .build();
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state != ConnectionState.CONNECTED) {
                System.err.println("STATE " + state);
            }
        });
        client.start();
        return client;
    }

    private static void awaitConnected(CuratorFramework client, String connectString) throws Exception {
        if (!client.blockUntilConnected(CONNECT_WAIT_SECONDS, TimeUnit.SECONDS)) {
            throw new Exit(EXIT_NOT_CONNECTED, "CuratorContender: not connected to " + connectString
                    + " within " + CONNECT_WAIT_SECONDS + " s");
        }
    }

    /** Close the client (ends the session, so our ephemeral nodes go away now), bounded in time. */
    private static void closeQuietly(CuratorFramework client) {
        if (client == null) {
            return;
        }
        Thread closer = new Thread(() -> {
            try {
                client.close();
            } catch (Throwable t) {
                System.err.println("CuratorContender: close failed: " + t);
            }
        }, "contender-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void runMutex(String[] args) throws Exception {
        if (args.length != 6) {
            usage("mutex needs 5 arguments");
        }
        String connectString = args[1];
        String lockPath = args[2];
        long iterations = parseNonNegative("iterations", args[3]);
        long holdMillis = parseNonNegative("holdMillis", args[4]);
        Path marker = Paths.get(args[5]);

        CuratorFramework client = startClient(connectString);
        try {
            awaitConnected(client, connectString);
            VisibleMutex mutex = new VisibleMutex(client, lockPath);
            long acquired = 0;
            boolean sawOther = false;
            boolean printedParticipants = false;

            for (long i = 0; i < iterations; i++) {
                mutex.acquire();
                long start = System.nanoTime();
                acquired++;
                String own = mutex.ownNodePath();
                boolean cycleOk = false;
                boolean markerOurs = false;
                try {
                    try {
                        Files.createFile(marker);
                        markerOurs = true;
                    } catch (FileAlreadyExistsException e) {
                        line("OVERLAP");
                        // Do not touch the marker: it belongs to the other holder.
                        throw new Exit(EXIT_OVERLAP, "CuratorContender: marker " + marker
                                + " already exists while holding " + own + ": mutual exclusion broken");
                    }

                    Collection<String> nodes = mutex.getParticipantNodes();
                    for (String node : nodes) {
                        if (!node.equals(own)) {
                            sawOther = true;
                            break;
                        }
                    }
                    if (!printedParticipants && nodes.size() > 1) {
                        printedParticipants = true;
                        line("PARTICIPANTS " + String.join(",", nodes));
                    }

                    if (holdMillis > 0) {
                        Thread.sleep(holdMillis);
                    }
                    Files.delete(marker);
                    markerOurs = false;
                    long end = System.nanoTime();
                    line("HELD " + own + " " + start + " " + end);
                    cycleOk = true;
                } finally {
                    if (cycleOk) {
                        mutex.release();
                    } else {
                        // Already failing: remove our marker so the other contender does not report a
                        // false OVERLAP, release best effort, keep the original error/exit code.
                        if (markerOurs) {
                            try {
                                Files.deleteIfExists(marker);
                            } catch (Exception e) {
                                System.err.println("CuratorContender: marker cleanup: " + e);
                            }
                        }
                        try {
                            mutex.release();
                        } catch (Exception e) {
                            System.err.println("CuratorContender: release after failure: " + e);
                        }
                    }
                }
            }
            closeQuietly(client);
            client = null;
            line("DONE acquired=" + acquired + " saw_other=" + sawOther);
        } finally {
            closeQuietly(client);
        }
    }

    private static void runSemaphore(String[] args) throws Exception {
        if (args.length != 6) {
            usage("semaphore needs 5 arguments");
        }
        String connectString = args[1];
        String semPath = args[2];
        int maxLeases = (int) parseNonNegative("maxLeases", args[3]);
        long iterations = parseNonNegative("iterations", args[4]);
        long holdMillis = parseNonNegative("holdMillis", args[5]);

        CuratorFramework client = startClient(connectString);
        try {
            awaitConnected(client, connectString);
            InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, semPath, maxLeases);
            long acquired = 0;
            for (long i = 0; i < iterations; i++) {
                Lease lease = semaphore.acquire();
                long start = System.nanoTime();
                acquired++;
                try {
                    if (holdMillis > 0) {
                        Thread.sleep(holdMillis);
                    }
                    long end = System.nanoTime();
                    line("HELD " + lease.getNodeName() + " " + start + " " + end);
                } finally {
                    semaphore.returnLease(lease);
                }
            }
            closeQuietly(client);
            client = null;
            line("DONE acquired=" + acquired);
        } finally {
            closeQuietly(client);
        }
    }

    private static void runRwLock(String[] args) throws Exception {
        if (args.length != 6) {
            usage("rwlock needs 5 arguments");
        }
        String connectString = args[1];
        String lockPath = args[2];
        String kind = args[3];
        if (!kind.equals("read") && !kind.equals("write")) {
            usage("the side must be read or write, got '" + kind + "'");
        }
        long iterations = parseNonNegative("iterations", args[4]);
        long holdMillis = parseNonNegative("holdMillis", args[5]);

        CuratorFramework client = startClient(connectString);
        try {
            awaitConnected(client, connectString);
            InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, lockPath);
            InterProcessMutex side = kind.equals("read") ? rw.readLock() : rw.writeLock();
            long acquired = 0;
            for (long i = 0; i < iterations; i++) {
                side.acquire();
                long start = System.nanoTime();
                acquired++;
                try {
                    String own = ownNodePath(side);
                    if (holdMillis > 0) {
                        Thread.sleep(holdMillis);
                    }
                    long end = System.nanoTime();
                    line("HELD " + kind + " " + own + " " + start + " " + end);
                } finally {
                    side.release();
                }
            }
            closeQuietly(client);
            client = null;
            line("DONE acquired=" + acquired);
        } finally {
            closeQuietly(client);
        }
    }

    private static void runRevocable(String[] args) throws Exception {
        if (args.length != 4) {
            usage("revocable needs 3 arguments");
        }
        String connectString = args[1];
        String lockPath = args[2];
        long holdMaxMillis = parseNonNegative("holdMaxMillis", args[3]);

        CuratorFramework client = startClient(connectString);
        try {
            awaitConnected(client, connectString);
            VisibleMutex mutex = new VisibleMutex(client, lockPath);
            CountDownLatch asked = new CountDownLatch(1);
            // Runs on ZooKeeper's event thread (direct executor): only signal the holder.
            mutex.makeRevocable(m -> asked.countDown());
            mutex.acquire();
            long start = System.nanoTime();
            boolean revoked;
            try {
                line("HELD " + mutex.ownNodePath());
                revoked = asked.await(holdMaxMillis, TimeUnit.MILLISECONDS);
            } finally {
                mutex.release();
            }
            long heldMillis = (System.nanoTime() - start) / 1000000;
            closeQuietly(client);
            client = null;
            if (!revoked) {
                line("NOT_REVOKED");
                throw new Exit(EXIT_NOT_REVOKED, "CuratorContender: no revocation of the lock on "
                        + lockPath + " within " + holdMaxMillis + " ms");
            }
            line("REVOKED " + heldMillis);
        } finally {
            closeQuietly(client);
        }
    }

    private static void runRevoke(String[] args) throws Exception {
        if (args.length != 3) {
            usage("revoke needs 2 arguments");
        }
        String connectString = args[1];
        String nodePath = args[2];

        CuratorFramework client = startClient(connectString);
        try {
            awaitConnected(client, connectString);
            Revoker.attemptRevoke(client, nodePath);
            closeQuietly(client);
            client = null;
            line("REVOKE_SENT");
        } finally {
            closeQuietly(client);
        }
    }

    private static void runLatch(String[] args) throws Exception {
        if (args.length != 5) {
            usage("latch needs 4 arguments");
        }
        String connectString = args[1];
        String latchPath = args[2];
        String id = args[3];
        long holdMillis = parseNonNegative("holdMillis", args[4]);

        CuratorFramework client = startClient(connectString);
        try {
            awaitConnected(client, connectString);
            LeaderLatch latch = new LeaderLatch(client, latchPath, id, LeaderLatch.CloseMode.NOTIFY_LEADER);
            latch.start();
            try {
                latch.await();
                long start = System.nanoTime();
                line("LEADER " + id + " " + start);
                if (holdMillis > 0) {
                    Thread.sleep(holdMillis);
                }
                List<String> parts = new ArrayList<>();
                for (Participant p : latch.getParticipants()) {
                    parts.add(p.getId() + ":" + p.isLeader());
                }
                line("PARTICIPANTS " + String.join(",", parts));
            } finally {
                latch.close();
            }
            closeQuietly(client);
            client = null;
            line("DONE");
        } finally {
            closeQuietly(client);
        }
    }

    public static void main(String[] args) {
        int code = EXIT_OK;
        try {
            if (args.length < 1) {
                usage("missing mode");
            } else if (args[0].equals("mutex")) {
                runMutex(args);
            } else if (args[0].equals("latch")) {
                runLatch(args);
            } else if (args[0].equals("semaphore")) {
                runSemaphore(args);
            } else if (args[0].equals("rwlock")) {
                runRwLock(args);
            } else if (args[0].equals("revocable")) {
                runRevocable(args);
            } else if (args[0].equals("revoke")) {
                runRevoke(args);
            } else {
                usage("unknown mode '" + args[0] + "'");
            }
        } catch (Exit e) {
            System.err.println(e.getMessage());
            code = e.code;
        } catch (Throwable t) {
            t.printStackTrace();
            code = EXIT_ERROR;
        }
        OUT.flush();
        System.err.flush();
        // Curator/ZooKeeper may leave non-daemon threads behind; do not wait for them.
        System.exit(code);
    }
}
