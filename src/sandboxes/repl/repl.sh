# coderunner stateful-sandbox driver for Bash (5.2; builtins only).
#
# Runs as `bash /workspace/.coderunner-repl.sh FIFO` for the whole life of a
# sandbox. Each call is eval'ed in this very shell, so variables, functions,
# aliases, options and the working directory carry over between calls.
#
# Protocol (shared with repl.py and repl.js). Calls arrive on FIFO, opened
# read-write so that we never read EOF while the service restarts. A call:
#   "CRX1" + uint32 little-endian payload length + payload
#   payload = nonce ([0-9a-f]{8,64}) NUL timeout_ms (ASCII decimal) NUL code
# The service never sends NUL in bash code (a shell variable cannot hold it).
# A bad frame cannot be skipped: one line on stderr and exit 3; the service
# restarts the sandbox. After each call, each with one write():
#   stdout: "\x1e" 'coderunner-init {"eof":"NONCE"}\n'
#   stderr: "\x1e" 'coderunner-init {...,"timed_out":0,"eof":"NONCE"}\n'
# exit_code is the status of the eval. timeout_ms is not enforced here: a
# shell cannot interrupt its own foreground command, so the service replaces
# the sandbox when a call overruns. A call that runs `exit` (or fails under
# `set -e`) ends the shell, which the service also handles by restarting.
#
# Everything below runs in the user's shell, so it is defensive: names start
# with __cr_, builtins are called through `builtin` (the user may define a
# function called `read`), and reads set IFS and LC_ALL=C (byte counts, not
# characters) for themselves only.

# Markers go to the descriptors we were started with, even after the user's
# `exec >file`. Fds >= 10 stay out of the way of the user's redirections.
exec {__cr_out}>&1 {__cr_err}>&2 {__cr_in}<>"${1:?usage: repl.sh FIFO}" || exit 3
set --  # The user's $1 is not our FIFO.

__cr_fail() {
  builtin printf 'coderunner repl: %s\n' "$1" >&"$__cr_err"
  exit 3
}

# One byte of the FIFO as its value (0-255): `read -d ''` stops at a NUL
# and leaves the variable empty, which is how we tell NUL apart.
__cr_byte() {
  local __cr_c
  IFS= LC_ALL=C builtin read -r -d '' -n 1 -u "$__cr_in" __cr_c || __cr_fail 'request channel closed'
  LC_ALL=C builtin printf -v "$1" '%d' "'$__cr_c"
}

# Reads up to the next NUL into $1.
__cr_field() {
  IFS= LC_ALL=C builtin read -r -d '' -u "$__cr_in" "$1" || __cr_fail 'malformed frame'
}

__cr_read_frame() {
  local __cr_magic __cr_b0 __cr_b1 __cr_b2 __cr_b3 __cr_len __cr_n
  IFS= LC_ALL=C builtin read -r -N 4 -u "$__cr_in" __cr_magic || __cr_fail 'request channel closed'
  [[ $__cr_magic == CRX1 ]] || __cr_fail 'bad frame magic'
  __cr_byte __cr_b0; __cr_byte __cr_b1; __cr_byte __cr_b2; __cr_byte __cr_b3
  __cr_len=$(( __cr_b0 | __cr_b1 << 8 | __cr_b2 << 16 | __cr_b3 << 24 ))
  (( __cr_len <= 64 << 20 )) || __cr_fail "frame too large ($__cr_len bytes)"
  __cr_field __cr_nonce
  [[ $__cr_nonce =~ ^[0-9a-f]{8,64}$ ]] || __cr_fail 'malformed frame'
  __cr_field __cr_timeout
  [[ $__cr_timeout =~ ^[0-9]+$ ]] || __cr_fail 'malformed frame'
  __cr_n=$(( __cr_len - ${#__cr_nonce} - ${#__cr_timeout} - 2 ))
  (( __cr_n >= 0 )) || __cr_fail 'malformed frame'
  __cr_code=
  if (( __cr_n > 0 )); then
    IFS= LC_ALL=C builtin read -r -N "$__cr_n" -u "$__cr_in" __cr_code ||
      __cr_fail 'request channel closed'
  fi
}

# First number in file $2 (or the one after key $3) into $1; -1 if none.
__cr_number() {
  local __cr_k __cr_v
  builtin printf -v "$1" %s -1
  [[ -r $2 ]] || return 0
  while IFS=$' \t' builtin read -r __cr_k __cr_v; do
    if [[ -z ${3-} && $__cr_k =~ ^[0-9]+$ ]]; then builtin printf -v "$1" %s "$__cr_k"; return 0; fi
    if [[ $__cr_k == "${3-}" && $__cr_v =~ ^[0-9]+$ ]]; then builtin printf -v "$1" %s "$__cr_v"; return 0; fi
  done < "$2"
}

# CPU of this shell and its waited-for children (utime, stime, cutime,
# cstime of /proc/$$/stat, in USER_HZ = 100 ticks) in microseconds; -1 if
# /proc is missing. `times` would need a subshell or a file to parse.
__cr_cpu() {
  local __cr_s __cr_f IFS=' '
  builtin printf -v "$1" %s -1
  builtin read -r __cr_s < "/proc/$$/stat" 2>/dev/null || return 0
  __cr_f=(${__cr_s##*) })
  builtin printf -v "$1" %s $(( (__cr_f[11] + __cr_f[12] + __cr_f[13] + __cr_f[14]) * 10000 ))
}

__cr_now() {  # Microseconds; EPOCHREALTIME's decimal point is locale-dependent.
  builtin printf -v "$1" %s "${EPOCHREALTIME//[!0-9]/}"
}

while :; do
  __cr_read_frame
  __cr_now __cr_t0; __cr_cpu __cr_c0
  # If the user turns on xtrace, keep our own commands out of their stderr:
  # xtrace is off while we run, and back on for their code.
  eval "${__cr_xtrace:+builtin set -x; }$__cr_code"
  { __cr_rc=$? __cr_xtrace=${-//[!x]/}; builtin set +x; } 2>/dev/null
  __cr_now __cr_t1; __cr_cpu __cr_c1
  (( __cr_c0 >= 0 && __cr_c1 >= 0 )) && __cr_cpu_us=$(( __cr_c1 - __cr_c0 )) || __cr_cpu_us=-1
  __cr_number __cr_mem /sys/fs/cgroup/memory.peak
  (( __cr_mem >= 0 )) || __cr_number __cr_mem /sys/fs/cgroup/memory/memory.max_usage_in_bytes
  __cr_number __cr_oom /sys/fs/cgroup/memory.events oom_kill
  (( __cr_oom >= 0 )) || __cr_number __cr_oom /sys/fs/cgroup/memory/memory.oom_control oom_kill
  builtin printf '\036coderunner-init {"eof":"%s"}\n' "$__cr_nonce" >&"$__cr_out"
  builtin printf '\036coderunner-init {"exit_code":%d,"signal":0,"wall_us":%d,"cpu_us":%d,"memory_peak_bytes":%d,"oom_kills":%d,"output_bytes":-1,"output_entries":-1,"output_violation":"","output_rolled_back":0,"timed_out":0,"eof":"%s"}\n' \
    "$__cr_rc" $(( __cr_t1 - __cr_t0 )) "$__cr_cpu_us" "$__cr_mem" "$__cr_oom" "$__cr_nonce" >&"$__cr_err"
done
