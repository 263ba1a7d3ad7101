// Attack: a thread bomb in Java: start sleeping daemon threads until the
// JVM cannot create one more.
// Contained by limits.pids (threads are tasks): the JVM's thread creation
// fails (the kernel's EAGAIN, an OutOfMemoryError "unable to create native
// thread") and the container never holds more than limits.pids tasks.
// Reports: "errno EAGAIN" (when that is why), "peak_tasks N" (the tasks
// counted in /proc, PID 1 included, at the failure) and "spawned N".
// Runs as language java, whose program is Main.java: the class is Main.
import java.io.File;

public class Main {
  static int tasks() {
    int n = 0;
    for (File p : new File("/proc").listFiles()) {
      if (!p.getName().matches("\\d+")) continue;
      String[] task = new File(p, "task").list();
      if (task != null) n += task.length;
    }
    return n;
  }

  public static void main(String[] args) {
    int spawned = 0;
    try {
      while (true) {
        Thread t = new Thread(() -> {
          try {
            Thread.sleep(60000);
          } catch (InterruptedException e) {
          }
        });
        t.setDaemon(true);
        t.start();
        spawned++;
      }
    } catch (OutOfMemoryError e) {
      String why = String.valueOf(e.getMessage());
      System.out.println("errno " + (why.contains("unable to create native thread") ? "EAGAIN" : why));
      System.out.println("peak_tasks " + tasks());
      System.out.println("spawned " + spawned);
      System.exit(0);
    }
  }
}
