// SPDX-License-Identifier: Apache-2.0
// Curator's LeaderLatch and LeaderSelector for bench/run.sh's scenario l
// (bench/scen_leader.c runs it after each zkcoord round):
//
//   CuratorLeaderPeer CONNECT ROOT graceful N SESSION_MS
//     N latch hand-offs (leader's close() -> the candidate's isLeader) and
//     N selector hand-offs (the leader's takeLeadership returning -> the
//     next one's takeLeadership), two sessions of this JVM, the same 5 ms
//     pause as zkcoord's before each release;
//   CuratorLeaderPeer CONNECT ROOT crash N SESSION_MS
//     N rounds: a child JVM leads a LeaderLatch, is killed (SIGKILL, by
//     destroyForcibly), and this JVM's candidate latch becomes leader; the
//     kill and the isLeader are both stamped here;
//   CuratorLeaderPeer CONNECT ROOT crash-selector N SESSION_MS
//     the same with LeaderSelectors: the child leads in takeLeadership and
//     blocks there; the kill -> this JVM's selector's takeLeadership call;
//   CuratorLeaderPeer CONNECT PATH child|child-selector 0 SESSION_MS
//     (the crash leader)
//
// Prints "N,<System.nanoTime()>" first (the caller checks it against its
// CLOCK_MONOTONIC), then one "S,latch|selector|crash|crash-selector,
// <microseconds>" per hand-off. Every session has the timeout SESSION_MS.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorLeaderPeer {
  private static CuratorFramework client(String connect, int sessionMs) throws Exception {
    CuratorFramework c = CuratorFrameworkFactory.newClient(connect, sessionMs, 15000,
        new ExponentialBackoffRetry(100, 3));
    c.start();
    if (!c.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("no session");
    return c;
  }

  private static void waitChildren(CuratorFramework c, String path, int n) throws Exception {
    while (c.checkExists().forPath(path) == null
        || c.getChildren().forPath(path).size() != n) Thread.sleep(1);
  }

  /**
   * A candidate that stamps the time it becomes leader: a latch (isLeader) or,
   * with selector, a LeaderSelector (takeLeadership, which then returns).
   */
  private static final class Stamped {
    final LeaderLatch latch;
    final LeaderSelector selector;
    final CountDownLatch led = new CountDownLatch(1);
    volatile long at;

    Stamped(CuratorFramework c, String path, String id, boolean selector) throws Exception {
      if (selector) {
        latch = null;
        this.selector = new LeaderSelector(c, path, new LeaderSelectorListenerAdapter() {
          @Override public void takeLeadership(CuratorFramework cf) { stamp(); }
        });
        this.selector.setId(id);
        this.selector.start();
      } else {
        this.selector = null;
        latch = new LeaderLatch(c, path, id);
        latch.addListener(new LeaderLatchListener() {
          @Override public void isLeader() { stamp(); }
          @Override public void notLeader() {}
        });
        latch.start();
      }
    }

    private void stamp() {
      at = System.nanoTime();
      led.countDown();
    }

    void close() throws Exception {
      if (latch != null) latch.close();
      else selector.close();
    }
  }

  // The selectors' turn, guarded by MU.
  private static final Object MU = new Object();
  private static int leader = -1;
  private static boolean go, quit;
  private static long turns, tIn, tRet;

  private static LeaderSelector selector(CuratorFramework c, String path, int me) {
    LeaderSelector s = new LeaderSelector(c, path, new LeaderSelectorListenerAdapter() {
      @Override public void takeLeadership(CuratorFramework cf) throws Exception {
        long t = System.nanoTime();
        synchronized (MU) {
          tIn = t;
          leader = me;
          turns++;
          MU.notifyAll();
          while (!go && !quit) MU.wait();
          go = false;
          leader = -1;
          tRet = System.nanoTime();
        }
      }
    });
    s.setId("s" + me);
    s.autoRequeue();
    s.start();
    return s;
  }

  private static void graceful(String connect, String root, int n, int sessionMs) throws Exception {
    CuratorFramework[] cs = {client(connect, sessionMs), client(connect, sessionMs)};
    String lpath = root + "/latch", spath = root + "/selector";
    cs[0].create().creatingParentsIfNeeded().forPath(lpath);
    cs[0].create().creatingParentsIfNeeded().forPath(spath);
    Stamped lead = new Stamped(cs[0], lpath, "l0", false);
    lead.latch.await();
    int holder = 0;
    LeaderSelector[] sel = {selector(cs[0], spath, 0), selector(cs[1], spath, 1)};
    for (int k = 0; k < n; k++) {
      int cand = 1 - holder;
      Stamped next = new Stamped(cs[cand], lpath, "l" + cand, false);
      waitChildren(cs[0], lpath, 2);
      Thread.sleep(5);
      long t0 = System.nanoTime();
      lead.latch.close();
      next.led.await();
      System.out.printf("S,latch,%.1f%n", (next.at - t0) / 1e3);
      lead = next;
      holder = cand;

      long seen;
      synchronized (MU) {
        while (leader < 0) MU.wait();
        seen = turns;
      }
      waitChildren(cs[0], spath, 2);
      Thread.sleep(5);
      synchronized (MU) {
        go = true;
        MU.notifyAll();
        while (turns == seen) MU.wait();
        System.out.printf("S,selector,%.1f%n", (tIn - tRet) / 1e3);
      }
    }
    lead.latch.close();
    synchronized (MU) {
      quit = true;
      MU.notifyAll();
    }
    for (LeaderSelector s : sel) s.close();
    for (CuratorFramework c : cs) c.close();
  }

  /** Crash rounds of the latch, or with selector of the LeaderSelector. */
  private static void crash(String connect, String root, int n, int sessionMs, boolean selector)
      throws Exception {
    CuratorFramework obs = client(connect, sessionMs);
    String path = root + "/crash";
    obs.create().creatingParentsIfNeeded().forPath(path);
    String java = System.getProperty("java.home") + "/bin/java";
    String cp = System.getProperty("java.class.path");
    Random rnd = new Random();
    for (int k = 0; k < n; k++) {
      Process p = new ProcessBuilder(java, "-cp", cp, "CuratorLeaderPeer", connect, path,
          selector ? "child-selector" : "child", "0", Integer.toString(sessionMs))
          .redirectError(ProcessBuilder.Redirect.INHERIT).start();
      BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()));
      String line;
      while ((line = r.readLine()) != null && !line.equals("leader")) {}
      if (line == null) throw new IllegalStateException("crash child did not lead");
      Stamped cand = new Stamped(obs, path, "observer", selector);
      waitChildren(obs, path, 2);
      // a uniform phase of the child's ping cycle (a third of its session),
      // a whole cycle after it led, as zkc_bench's crash rounds
      int pingMs = sessionMs / 3;
      Thread.sleep(pingMs + rnd.nextInt(pingMs));
      long t0 = System.nanoTime();
      p.destroyForcibly(); // SIGKILL on Linux
      p.waitFor();
      cand.led.await();
      System.out.printf("S,%s,%.1f%n", selector ? "crash-selector" : "crash", (cand.at - t0) / 1e3);
      cand.close();
    }
    obs.close();
  }

  private static void leadUntilKilled() throws InterruptedException {
    System.out.println("leader");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }

  /** The crash leader: a latch that won, or a selector blocked in takeLeadership. */
  private static void child(String connect, String path, int sessionMs, boolean selector)
      throws Exception {
    CuratorFramework c = client(connect, sessionMs);
    if (selector) {
      LeaderSelector s = new LeaderSelector(c, path, new LeaderSelectorListenerAdapter() {
        @Override public void takeLeadership(CuratorFramework cf) throws Exception {
          leadUntilKilled();
        }
      });
      s.setId("child");
      s.start();
      Thread.sleep(Long.MAX_VALUE);
    }
    LeaderLatch l = new LeaderLatch(c, path, "child");
    l.start();
    l.await();
    leadUntilKilled();
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: CuratorLeaderPeer CONNECT ROOT "
          + "graceful|crash|crash-selector|child|child-selector N SESSION_MS");
      System.exit(2);
    }
    int n = Integer.parseInt(args[3]), sessionMs = Integer.parseInt(args[4]);
    switch (args[2]) {
      case "child":
      case "child-selector":
        child(args[0], args[1], sessionMs, args[2].equals("child-selector"));
        break;
      case "graceful":
        System.out.println("N," + System.nanoTime());
        graceful(args[0], args[1], n, sessionMs);
        break;
      case "crash":
      case "crash-selector":
        System.out.println("N," + System.nanoTime());
        crash(args[0], args[1], n, sessionMs, args[2].equals("crash-selector"));
        break;
      default: System.exit(2);
    }
    System.out.flush();
    System.exit(0);
  }
}
