# Attack: a bash fork bomb: every copy starts two more, then holds its
# slot (a builtin read on a FIFO, no fork) so the container stays full.
# Contained by limits.pids: fork fails with EAGAIN ("Resource temporarily
# unavailable") and the container never holds more than limits.pids tasks.
# The copies never exit on their own, so no slot is freed and taken again
# while the main shell counts: a count of /proc is then a true snapshot
# (with copies exiting and forking during the glob, one pid could be seen
# gone and its successor seen too, counting more tasks than ever existed).
# The main shell never forks again: it counts the processes in the
# container (a glob on /proc, PID 1 included; every one of them is
# single-threaded, so processes are tasks) over and over until a while
# after the bomb was first refused a fork, reports "peak_tasks N" (the
# most it saw), "errno EAGAIN" if the refusal was that, kills every copy
# (kill -9 -1 spares the caller and PID 1) and says "still here".
mkfifo /tmp/hold
bomb() {
  bomb &
  bomb &
  read -r -t 60 <>/tmp/hold
}
bomb 2>>/tmp/bomb.err &
peak=0
refused=0
for ((i = 0; i < 100000 && refused < 200; i++)); do
  set -- /proc/[0-9]*
  (($# > peak)) && peak=$#
  if ((refused)) || [[ -s /tmp/bomb.err ]]; then ((refused++)); fi
done
kill -9 -1 2>/dev/null
first=""
[[ -s /tmp/bomb.err ]] && read -r first </tmp/bomb.err
echo "peak_tasks $peak"
case $first in
  *"Resource temporarily unavailable"*) echo "errno EAGAIN" ;;
  *) echo "first error: $first" ;;
esac
echo "still here"
