# Attack: create tens of thousands of empty files and directories in
# /output to exhaust the host file system's inodes and the service's memory
# when it lists them (zip-bomb style, no bytes at all).
# Contained when coderunner-init stops the job at the entry cap (1000 by
# default) and the service lists at most that many.
import os
n = 0
try:
    for i in range(50000):
        os.mkdir("/output/d%05d" % i)
        open("/output/d%05d/f" % i, "w").close()
        n += 1
except OSError as e:
    print("stopped", e.errno)
print("MADE", n)
