# Attack: the classic bash fork bomb: every copy starts two more, forever.
# Contained by limits.pids: fork fails with EAGAIN ("Resource temporarily
# unavailable") and the container never holds more than limits.pids tasks.
# The main shell never forks again: it counts the processes in the
# container (a glob on /proc, PID 1 included; every one of them is
# single-threaded, so processes are tasks) over and over until a while
# after the bomb was first refused a fork, then reports "peak_tasks N" (the
# most it saw), "errno EAGAIN" if the refusal was that, and "still here".
bomb() { bomb | bomb & }
bomb 2>>/tmp/bomb.err
peak=0
refused=0
for ((i = 0; i < 100000 && refused < 200; i++)); do
  set -- /proc/[0-9]*
  (($# > peak)) && peak=$#
  if ((refused)) || [[ -s /tmp/bomb.err ]]; then ((refused++)); fi
done
first=""
[[ -s /tmp/bomb.err ]] && read -r first </tmp/bomb.err
echo "peak_tasks $peak"
case $first in
  *"Resource temporarily unavailable"*) echo "errno EAGAIN" ;;
  *) echo "first error: $first" ;;
esac
echo "still here"
