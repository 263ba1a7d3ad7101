# Attack: daemonize (double fork + setsid) so a process outlives the job and
# keeps running in the container. Contained when the job ends promptly with
# its main process and the whole container dies with it.
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
    os._exit(0)
print("main exits")
