# Attack: nest directories thousands of levels deep in /output, so that a
# recursive walker in the service overflows its stack or its path buffers.
# Contained when the job is stopped (too_deep) or the deep part is skipped
# and removed, and the service keeps answering.
import os
os.chdir("/output")
depth = 0
try:
    for i in range(5000):
        os.mkdir("d")
        os.chdir("d")
        depth += 1
    open("bottom.txt", "w").write("deep")
except OSError as e:
    print("stopped", e.errno)
print("DEPTH", depth)
