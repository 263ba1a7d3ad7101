// prestart: a job's interpreter started before its job arrives (-P N, warm
// pool only). The first N words of init's command are the prestart
// command: init runs it as it would run the job (job_start.h: a session of
// its own, the job's environment, the inherited seccomp filter, default
// signals), with stdin /dev/null and, as descriptor kPrestartFd, the read
// end of a pipe. The process loads what it may (an interpreter and its
// heavy modules), then reads its release from that pipe: the words
//   the path of the job's stdin file ("" for /dev/null), then the job's
// whole argv, each NUL-terminated, up to end of file. It then runs the job as the argv would have:
// the rest of init's command plus the go message's arguments. A process that died before its
// release (or whose release could not be written) is reaped and the job starts as a cold one would
// (StartJob), so a prestart can make a job faster but never change what it runs. Not thread-safe
// (init is single-threaded).
#ifndef CODERUNNER_INIT_PRESTART_H_
#define CODERUNNER_INIT_PRESTART_H_

#include <sys/types.h>

#include "init_options.h"

enum {
  kPrestartFd = 3,  // The release pipe's read end in the prestarted process.
  // The release pipe's capacity: the whole release fits (a go message's
  // arguments are at most kMaxGoPayloadBytes), so init never blocks on it.
  kPrestartPipeBytes = 1 << 17,
};

// A prestarted process, or none (pid -1).
typedef struct {
  pid_t pid;
  int release_fd;  // Write end of the release pipe; -1 with no process.
} Prestarted;

// The prestart command: the first -P words of init's command, as a
// NULL-terminated argv (static storage, valid until the next call).
char** PrestartArgv(const InitOptions* o);

// Starts the prestart command `argv` (NULL-terminated). Leaves `p` empty
// (pid -1) when it could not start: the job then starts cold.
void StartPrestart(const InitOptions* o, char** argv, Prestarted* p);

// Hands the job `job_argv` (NULL-terminated) to the prestarted process:
// its pid is the job's (*child) from here on. Returns NULL then; when
// there is no live prestarted process, reaps what is left of it and starts
// the job with StartJob instead (its result). `p` is empty afterwards.
const char* ReleasePrestarted(const InitOptions* o, Prestarted* p, char** job_argv, pid_t* child);

#endif  // CODERUNNER_INIT_PRESTART_H_
