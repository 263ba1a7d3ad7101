# Attack: resolve a public name (DNS exfiltration / reaching a resolver).
# Contained when resolution fails: no resolver is reachable.
if getent hosts example.com; then echo RESOLVED; else echo "blocked dns"; fi
cat /etc/resolv.conf 2>/dev/null | grep -v '^#' || true
