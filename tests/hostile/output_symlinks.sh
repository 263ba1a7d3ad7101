# Attack: plant symlinks in /output that point at host paths and at the
# service's own files, expecting the privileged service to follow them when
# it reads the artifacts (Judge0 CVE-2024-28185: symlink -> host write;
# CVE-2024-28189: chown through a symlink).
# Contained when every symlink is reported as skipped, none is listed or
# downloadable, and nothing outside /output is read, written or chowned.
cd /output || exit 1
ln -s /etc/shadow shadow
ln -s / root
ln -s /etc etcdir
ln -s ../../../../../../../../var/lib/coderunner up
ln -s /proc/1/root/etc/passwd proc-root
ln -s /run/coderunner/docker.sock engine.sock
ln -s /var/run/docker.sock docker.sock
ln -s self loop-a && ln -s loop-a self
mkdir -p d && ln -s /etc/passwd d/passwd
echo ok > real.txt
ls -la /output 2>/dev/null | sed 's/^/planted /'
echo planted all
