# Attack: persist or tamper by writing to the root filesystem, /workspace
# (the job's own inputs), /etc and /usr. Only /tmp may be writable.
for p in /x /etc/passwd /usr/bin/python3 /workspace/main.sh /workspace/new /var/tmp/x /dev/shm/x; do
  if (echo pwned > "$p") 2>/dev/null; then echo "WROTE $p"; else echo "denied $p"; fi
done
echo ok > /tmp/allowed && echo "tmp writable"
