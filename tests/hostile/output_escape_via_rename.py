# Attack: move files out of /output into places the next job or the service
# might trust (/tmp of a later job, /workspace), and rename /output itself,
# so the service collects the wrong tree.
# Contained when every move across mounts fails (EXDEV/EBUSY/EROFS) and the
# artifact list is exactly what stayed in /output.
import os
open("/output/x.txt", "w").write("x")
for dst in ["/workspace/x.txt", "/tmp/x.txt", "/x.txt"]:
    try:
        os.rename("/output/x.txt", dst)
        print("MOVED to", dst)
        break
    except OSError as e:
        print("denied rename", dst, e.errno)
for dst in ["/tmp/out", "/output2"]:
    try:
        os.rename("/output", dst)
        print("MOVED /output to", dst)
    except OSError as e:
        print("denied rename /output", dst, e.errno)
