// Curator's InterProcessMutex in the peer protocol of bench/run.sh (see
// bench/peers/README.md): one round of each measure, one CuratorFramework
// (session) per worker thread.
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
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

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: CuratorPeer CONNECT ROOT ROUND_MS [MEASURE:N...]");
      System.exit(2);
    }
    int roundMs = Integer.parseInt(args[2]);
    for (int k = 3; k < args.length; k++) {
      String[] kv = args[k].split(":");
      run(args[0], args[1], kv[0], Integer.parseInt(kv[1]), !kv[0].equals("paths"), roundMs);
    }
    System.exit(0);
  }
}
