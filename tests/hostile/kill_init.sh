# Attack: SIGKILL PID 1 (coderunner-init), then every process the job may
# signal (kill -1), hoping to wedge the container or the service's
# bookkeeping.
# Contained when both are refused and nothing else changes: the seccomp
# filter answers kill(1, ...) with EPERM; kill(-1, ...) reaches no one
# (init is exempt and the job is alone), so ESRCH; init is still there
# and the job goes on to exit 0 on its own.
kill -9 1 2>&1
echo "kill -9 1: $?"
kill -9 -1 2>&1
echo "kill -9 -1: $?"
[[ -d /proc/1 ]] && echo "init alive"
echo "still alive"
