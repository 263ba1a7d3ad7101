# Attack: daemonize (fork, setsid, fork again) so that a grandchild outlives
# the job and keeps running in the container, or keeps writing to the host
# through /output, after the job has been reported.
# The grandchild beats a heartbeat forever: a fixed-width counter written
# into /output/heartbeat and fsync'd every 5 ms, so the host sees every
# beat. The main process waits until it has seen a few beats, reports the
# grandchild's pid and exits.
# Contained when the job ends with its main process (succeeded, not at the
# wall clock) and the heartbeat stops with it: the integration test reads
# the counter on the host after the answer, runs a whole further job, and
# finds it unchanged.
import os, time

PATH = "/output/heartbeat"


def beat_forever():
    fd = os.open(PATH, os.O_WRONLY | os.O_CREAT, 0o644)
    n = 0
    while True:
        n += 1
        os.pwrite(fd, b"%012d" % n, 0)
        os.fsync(fd)
        time.sleep(0.005)


def beats():
    try:
        with open(PATH, "rb") as f:
            return int(f.read() or b"0")
    except (OSError, ValueError):
        return 0


if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        beat_forever()
    os._exit(0)
os.wait()
while beats() < 3:
    time.sleep(0.005)
print("grandchild beating", beats() >= 3)
print("main exits")
