# Attack: kill PID 1 and everything else with SIGKILL, hoping to wedge the
# container or the service's bookkeeping.
kill -9 1 2>&1; kill -9 -1 2>&1
echo "still alive"
