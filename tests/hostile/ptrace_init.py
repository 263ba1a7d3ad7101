# Attack: ptrace PID 1 (coderunner-init) and the kernel, hoping for
# privileges. Attaching to a same-uid process inside the sandbox grants
# nothing; the job must still have no capabilities afterwards.
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH, PTRACE_DETACH = 16, 17
r = libc.ptrace(PTRACE_ATTACH, 1, None, None)
print("attach pid1:", r, os.strerror(ctypes.get_errno()) if r != 0 else "ok")
if r == 0:
    libc.ptrace(PTRACE_DETACH, 1, None, None)
print("CapEff", [l for l in open("/proc/self/status") if l.startswith("CapEff")][0].split()[1])
