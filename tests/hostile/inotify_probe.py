# Probe run while another tenant's sandbox holds every inotify instance its
# uid may have (inotify_hog.py): this job's own inotify_init1 must still
# work, because no two containers share a host uid. Prints "inotify ok" or
# "inotify ERRNO", then "uid UID".
import ctypes
import errno
import os

libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
if fd >= 0:
    print("inotify ok")
else:
    err = ctypes.get_errno()
    print("inotify", errno.errorcode.get(err, str(err)))
print("uid", os.getuid())
