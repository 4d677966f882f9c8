// SPDX-License-Identifier: Apache-2.0
// Curator's InterProcessMutex, InterProcessReadWriteLock and
// InterProcessSemaphoreV2 in the peer protocol of bench/run.sh (see
// bench/peers/README.md): one round of each measure, one CuratorFramework
// (session) per worker thread.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Random;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorPeer {
  private static final Object MU = new Object();
  private static long count;
  private static long lastRelease;
  private static List<Double> handoffs;

  private static double quantile(List<Double> v, double q) {
    if (v.isEmpty()) return -1;
    Collections.sort(v);
    return v.get((int) (q * (v.size() - 1)));
  }

  private static void run(String connect, String root, String measure, int n, boolean shared,
      int roundMs) throws Exception {
    List<CuratorFramework> clients = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      CuratorFramework c = CuratorFrameworkFactory.newClient(connect, 10000, 10000,
          new ExponentialBackoffRetry(100, 3));
      c.start();
      if (!c.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("no session");
      clients.add(c);
    }
    count = 0;
    lastRelease = 0;
    handoffs = new ArrayList<>();
    long warm = System.nanoTime() + roundMs / 5 * 1000000L;
    long end = warm + roundMs * 1000000L;
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String path = root + "/" + measure + "-" + n + (shared ? "" : "/" + i);
      InterProcessMutex lock = new InterProcessMutex(clients.get(i), path);
      Thread t = new Thread(() -> {
        try {
          while (System.nanoTime() < end) {
            lock.acquire();
            long now = System.nanoTime();
            synchronized (MU) {
              if (now > warm && now < end) {
                count++;
                if (shared && lastRelease != 0) handoffs.add((now - lastRelease) / 1e3);
              }
              if (shared) lastRelease = System.nanoTime();
            }
            lock.release();
          }
        } catch (Exception e) {
          e.printStackTrace();
          System.exit(1);
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) t.join();
    for (CuratorFramework c : clients) c.close();
    double rate = count / (roundMs / 1e3);
    double p50 = -1, p99 = -1;
    if (shared && n > 1) {
      p50 = quantile(handoffs, 0.5);
      p99 = quantile(handoffs, 0.99);
    }
    System.out.printf("M,%s,%d,%.1f,%.0f,%.0f%n", measure, n, rate, p50, p99);
    System.out.flush();
  }

  // ---- the recipe measures (rw*, rwherd*, sem*) ----

  // Watch notifications fired so far on the servers of CONNECT: the sum of
  // every zk_sum_node_*_watch_count of `mntr` over the servers.
  private static double notifications(String connect) throws Exception {
    return mntrCounts(connect)[0];
  }

  // {notifications, zk_packets_received (client requests, pings included)}
  private static double[] mntrCounts(String connect) throws Exception {
    double sum = 0, packets = 0;
    for (String hp : connect.split(",")) {
      int colon = hp.lastIndexOf(':');
      try (Socket s = new Socket(hp.substring(0, colon), Integer.parseInt(hp.substring(colon + 1)))) {
        s.setSoTimeout(5000);
        OutputStream o = s.getOutputStream();
        o.write("mntr".getBytes(StandardCharsets.US_ASCII));
        o.flush();
        BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
        for (String line; (line = r.readLine()) != null; ) {
          String[] kv = line.split("\t");
          if (kv.length == 2 && kv[0].startsWith("zk_sum_node_") && kv[0].endsWith("_watch_count"))
            sum += Double.parseDouble(kv[1]);
          if (kv.length == 2 && kv[0].equals("zk_packets_received")) packets += Double.parseDouble(kv[1]);
        }
      }
    }
    return new double[] {sum, packets};
  }

  private static List<CuratorFramework> open(String connect, int n) throws Exception {
    List<CuratorFramework> clients = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      CuratorFramework c = CuratorFrameworkFactory.newClient(connect, 10000, 10000,
          new ExponentialBackoffRetry(100, 3));
      c.start();
      if (!c.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("no session");
      clients.add(c);
    }
    return clients;
  }

  private static long ops, timeouts;

  // rwPCT:N (PCT % reads) or semLkK:N (L leases, K per acquire). A
  // semaphore acquire waits at most 1 s: Curator takes K > 1 leases one
  // queue round at a time and holders of some can stall each other; a
  // timed-out acquire returns what it took and is counted.
  private static void runRecipe(String connect, String root, String measure, int n, int roundMs,
      int pct, int leases, int k) throws Exception {
    List<CuratorFramework> clients = open(connect, n);
    String path = root + "/" + measure + "-" + n;
    List<InterProcessReadWriteLock> rws = new ArrayList<>();
    List<InterProcessSemaphoreV2> sems = new ArrayList<>();
    for (CuratorFramework c : clients) { // before the clock starts
      rws.add(pct >= 0 ? new InterProcessReadWriteLock(c, path) : null);
      sems.add(pct < 0 ? new InterProcessSemaphoreV2(c, path, leases) : null);
    }
    // One untimed cycle first (every peer does): connected and warmed up.
    if (pct >= 0) {
      rws.get(0).writeLock().acquire();
      rws.get(0).writeLock().release();
    } else {
      sems.get(0).returnAll(sems.get(0).acquire(1));
    }
    count = 0;
    ops = 0;
    timeouts = 0;
    double[] c0 = mntrCounts(connect);
    long warm = System.nanoTime() + roundMs / 5 * 1000000L;
    long end = warm + roundMs * 1000000L;
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Random rnd = new Random(i * 7919L + 1);
      InterProcessReadWriteLock rw = rws.get(i);
      InterProcessSemaphoreV2 sem = sems.get(i);
      Thread t = new Thread(() -> {
        try {
          while (System.nanoTime() < end) {
            if (rw != null) {
              InterProcessMutex m = rnd.nextInt(100) < pct ? rw.readLock() : rw.writeLock();
              m.acquire();
              long now = System.nanoTime();
              synchronized (MU) {
                if (now > warm && now < end) count++;
                ops++;
              }
              m.release();
            } else {
              Collection<Lease> got = sem.acquire(k, 1, TimeUnit.SECONDS);
              long now = System.nanoTime();
              synchronized (MU) {
                if (got == null) {
                  timeouts++;
                  continue;
                }
                if (now > warm && now < end) count += k;
                ops++;
              }
              sem.returnAll(got);
            }
          }
        } catch (Exception e) {
          e.printStackTrace();
          System.exit(1);
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) t.join();
    Thread.sleep(200); // the last deletes' notifications
    double[] c1 = mntrCounts(connect);
    for (CuratorFramework c : clients) c.close();
    System.out.printf("M,%s,%d,%.1f,-1,-1%n", measure, n, count / (roundMs / 1e3));
    if (ops > 0) System.out.printf("M,%s-notify,%d,%.3f,-1,-1%n", measure, n, (c1[0] - c0[0]) / ops);
    if (ops > 0) System.out.printf("M,%s-requests,%d,%.3f,-1,-1%n", measure, n, (c1[1] - c0[1]) / ops);
    System.out.printf("M,%s-timeouts,%d,%d,-1,-1%n", measure, n, timeouts);
    System.out.flush();
  }

  private static long granted;

  private static void awaitGranted(long want) throws Exception {
    for (int i = 0; i < 10000; i++) {
      synchronized (MU) {
        if (granted >= want) return;
      }
      Thread.sleep(1);
    }
    throw new IllegalStateException("herd: grants did not arrive");
  }

  // The reader herd: `writers` writers queued (the first holding), then r
  // readers behind them; the writers release in turn until every reader
  // holds. Prints the watch notifications fired meanwhile, per reader.
  private static void runHerd(String connect, String root, String measure, int r, int writers)
      throws Exception {
    int total = writers + r;
    List<CuratorFramework> clients = open(connect, total);
    String path = root + "/" + measure + "-" + r;
    boolean[] go = new boolean[total];
    List<Thread> threads = new ArrayList<>();
    granted = 0;
    for (int i = 0; i < total; i++) {
      InterProcessReadWriteLock rw = new InterProcessReadWriteLock(clients.get(i), path);
      InterProcessMutex m = i < writers ? rw.writeLock() : rw.readLock();
      int me = i;
      Thread t = new Thread(() -> {
        try {
          m.acquire();
          synchronized (MU) {
            granted++;
            while (!go[me]) MU.wait();
          }
          m.release();
        } catch (Exception e) {
          e.printStackTrace();
          System.exit(1);
        }
      });
      threads.add(t);
      t.start();
      for (int j = 0; j < 5000; j++) { // one at a time: the queue in this order
        if (clients.get(0).checkExists().forPath(path) != null
            && clients.get(0).getChildren().forPath(path).size() >= i + 1) break;
        Thread.sleep(2);
      }
    }
    awaitGranted(1);
    Thread.sleep(500); // every waiter's watch set
    double n0 = notifications(connect);
    for (int w = 0; w < writers; w++) {
      awaitGranted(w + 1);
      Thread.sleep(100);
      synchronized (MU) {
        go[w] = true;
        MU.notifyAll();
      }
      threads.get(w).join();
    }
    awaitGranted(total);
    Thread.sleep(300);
    double n1 = notifications(connect);
    synchronized (MU) {
      for (int i = 0; i < total; i++) go[i] = true;
      MU.notifyAll();
    }
    for (Thread t : threads) t.join();
    for (CuratorFramework c : clients) c.close();
    System.out.printf("M,%s,%d,%.3f,-1,-1%n", measure, r, (n1 - n0) / r);
    System.out.flush();
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: CuratorPeer CONNECT ROOT ROUND_MS [MEASURE:N...]");
      System.exit(2);
    }
    int roundMs = Integer.parseInt(args[2]);
    for (int k = 3; k < args.length; k++) {
      String[] kv = args[k].split(":");
      String m = kv[0];
      int n = Integer.parseInt(kv[1]);
      java.util.regex.Matcher rw = java.util.regex.Pattern.compile("rw(\\d+)").matcher(m);
      java.util.regex.Matcher sem = java.util.regex.Pattern.compile("sem(\\d+)k(\\d+)").matcher(m);
      if (m.equals("rwherd")) runHerd(args[0], args[1], m, n, 1);
      else if (m.equals("rwherd2")) runHerd(args[0], args[1], m, n, 2);
      else if (rw.matches()) runRecipe(args[0], args[1], m, n, roundMs, Integer.parseInt(rw.group(1)), 0, 0);
      else if (sem.matches())
        runRecipe(args[0], args[1], m, n, roundMs, -1, Integer.parseInt(sem.group(1)), Integer.parseInt(sem.group(2)));
      else run(args[0], args[1], m, n, !m.equals("paths"), roundMs);
    }
    System.exit(0);
  }
}
