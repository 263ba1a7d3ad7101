# Attack: plant a setuid program in /output (a copy of a binary with the
# setuid and setgid bits), for a later job, a sandbox call or the host to
# run with the job's privileges, and check whether /output would honour
# setuid bits and device nodes at all.
# Contained when /output is mounted nosuid,nodev (statvfs says so under
# runc; gVisor shows no mount flags, and there the host mount it is bound
# from carries them), and the planted program's setuid bit never reaches a
# kept artifact (the service makes artifacts 0644).
import os, shutil, stat

vfs = os.statvfs("/output")
print("nosuid=%d nodev=%d" % (bool(vfs.f_flag & os.ST_NOSUID), bool(vfs.f_flag & os.ST_NODEV)),
      flush=True)
shutil.copy("/bin/true", "/output/suid")
os.chmod("/output/suid", 0o6755)
print("planted mode=%o" % stat.S_IMODE(os.stat("/output/suid").st_mode), flush=True)
