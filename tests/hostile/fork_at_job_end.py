# Attack: keep processes forking at the instant the job ends, so that one
# of them is born while coderunner-init's end-of-job kill(-1, SIGKILL)
# runs and misses the signal. Linux makes fork and kill(-1) atomic; gVisor
# does not. An init that then waits, blocked, for its children waits on a
# process nobody killed: the job, done, runs on to the wall clock and is
# reported as a timeout.
# A few respawners fork short-lived children without pause (a few each, so
# neither limits.pids nor memory is what stops them). A child whose parent
# is gone when it wakes was not killed with it: it escaped the kill, and
# holds on for a minute. The main process lets the storm run, reports how
# many processes it saw (the storm was live) and exits.
# Contained when the job ends with its main process (succeeded, not at the
# wall clock): init kills again until no process of the job is left.
import os, time

RESPAWNERS = 6
CHILDREN_EACH = 4


def child(parent):
    time.sleep(0.005)
    if os.getppid() != parent:  # Orphaned: the end-of-job kill missed it.
        time.sleep(60)
    os._exit(0)


def respawn_forever():
    me = os.getpid()
    alive = 0
    while True:
        if alive < CHILDREN_EACH:
            try:
                pid = os.fork()
            except OSError:
                pid = -1
            if pid == 0:
                child(me)
            alive += pid > 0
        try:
            flags = 0 if alive >= CHILDREN_EACH else os.WNOHANG
            alive -= os.waitpid(-1, flags)[0] > 0
        except ChildProcessError:
            alive = 0


for _ in range(RESPAWNERS):
    if os.fork() == 0:
        respawn_forever()
time.sleep(1)
tasks = sum(name.isdigit() for name in os.listdir("/proc"))
print(f"tasks_at_exit {tasks}", flush=True)
