# Attack: spawn threads until the system gives up (a thread bomb).
# Contained when thread creation fails at the pids limit and the job ends.
import threading, time
n = 0
try:
    while True:
        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
        n += 1
except RuntimeError as e:
    print("stopped after", n, "threads:", e)
