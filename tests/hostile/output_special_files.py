# Attack: leave a FIFO, a listening Unix socket and (attempted) device nodes
# in /output, so that a service opening "artifacts" blocks forever on the
# FIFO or opens a device.
# Contained when the job finishes, the service answers at once, and each
# special file is skipped as "special_file" (devices cannot even be made).
import os, socket, stat
os.mkfifo("/output/fifo")
s = socket.socket(socket.AF_UNIX)
s.bind("/output/sock")
s.listen(1)
for name, dev in [("null", os.makedev(1, 3)), ("sda", os.makedev(8, 0))]:
    try:
        os.mknod("/output/" + name, 0o666 | stat.S_IFCHR, dev)
        print("MADE device", name)
    except OSError as e:
        print("denied mknod", name, e.errno)
open("/output/normal.txt", "w").write("fine")
print("planted")
