# Attack: write to kernel interfaces under /proc and /sys (sysrq, core
# pattern, cgroup limits) to crash or reconfigure the host.
for p in /proc/sysrq-trigger /proc/sys/kernel/core_pattern /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/kernel/mm/transparent_hugepage/enabled; do
  if (echo x > "$p") 2>/dev/null; then echo "WROTE $p"; else echo "denied $p"; fi
done
