# Attack: hard-link files from outside /output into it (the program, the
# image's /etc/passwd, the init binary) so that the service reads or
# re-owns them, and hard-link within /output to confuse the accounting.
# Contained when cross-mount links fail (EXDEV/EPERM) and every file with a
# second name is skipped as "hardlink", never read.
import os
for src in ["/workspace/main.py", "/etc/passwd", "/.coderunner-init", "/usr/bin/python3"]:
    try:
        os.link(src, "/output/" + os.path.basename(src))
        print("LINKED", src)
    except OSError as e:
        print("denied link", src, e.errno)
open("/output/a.txt", "w").write("a")
os.link("/output/a.txt", "/output/b.txt")
print("inner link made")
