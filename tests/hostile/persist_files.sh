# Attack: leave files behind for the next job in /tmp, /dev/shm and
# /var/tmp (Piston's cross-job persistence). Run twice: the second run must
# find nothing.
for d in /tmp /dev/shm /var/tmp; do
  if [ -e "$d/coderunner-persist-marker" ]; then echo "FOUND $d"; else echo "clean $d"; fi
  (echo planted > "$d/coderunner-persist-marker") 2>/dev/null || true
done
