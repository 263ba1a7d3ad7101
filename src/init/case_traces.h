// case_traces: what coderunner-init clears between the cases of a series
// (go mode "more": see go_message.h), so that no case finds anything an
// earlier case left. Every process of a case is already gone
// (KillAndReapAll); what can outlive one is on writable file systems (the
// scratch directories given with -t, such as /tmp, and /output) and in the
// container's IPC namespace (System V shared memory, message queues and
// semaphores). POSIX message queues cannot be listed without mounting
// mqueue: the syscall filter refuses mq_open to every job instead.
//
// Like output_guard, everything works on directory descriptors and never
// follows a symlink the job planted. The work is bounded: a tree deeper
// than kMaxClearDepth or with more than kMaxClearEntries entries is not
// cleared, and the container is then not reused (the service runs the
// rest of the series in fresh containers). Not thread-safe (init is
// single-threaded).
#ifndef CODERUNNER_INIT_CASE_TRACES_H_
#define CODERUNNER_INIT_CASE_TRACES_H_

enum {
  kMaxClearDepth = 64,
  kMaxClearEntries = 100000,
};

// Removes every entry below each directory of `dirs` (`n` of them; NULL
// entries are skipped; the directories themselves stay). 0 when each one
// is verifiably empty afterwards, else -1.
int ClearDirectories(const char* const* dirs, int n);

// ClearDirectories for one directory the job owns (its /output: the job
// runs as its owner, so it may have changed its permission bits): sets
// them back to `mode` first. 0 when it is verifiably empty with `mode`.
int ClearOwnedDirectory(const char* dir, unsigned mode);

// Removes every System V shared memory segment, message queue and
// semaphore set /proc/sysvipc lists. 0 when none is left afterwards, else
// -1 (also when /proc/sysvipc cannot be read). Only for PID 1 of a
// container's own IPC namespace: on the host it would remove the host's.
int ClearSysvIpc(void);

#endif  // CODERUNNER_INIT_CASE_TRACES_H_
