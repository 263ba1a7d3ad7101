// job_start: forks the job process and execs its command, in a session of
// its own, with exactly the environment init was given, stdin from the
// options' file (or /dev/null), default signal dispositions and an empty
// signal mask. The seccomp filter is inherited from init.
#ifndef CODERUNNER_INIT_JOB_START_H_
#define CODERUNNER_INIT_JOB_START_H_

#include <sys/types.h>

#include "init_options.h"

// Forks the job, stores its pid in *child (or -1) and waits until it has
// exec'd `argv` (NULL-terminated; argv[0] looked up in the job's own PATH)
// or failed to. Returns NULL once the job runs, else what kept it from
// starting: "fork", "stdin" or "exec" (the child then wrote its reason to
// stderr and exited 127). Call from the single thread of init.
const char* StartJob(const InitOptions* o, char** argv, pid_t* child);

// StartJob, but with `pass_fd` (>= 0) passed on as descriptor kPrestartFd
// (prestart.h) and stdin /dev/null whatever the options say: a prestarted
// process opens the job's stdin itself once released. With pass_fd -1 it
// is StartJob.
const char* StartProcess(const InitOptions* o, char** argv, int pass_fd, pid_t* child);

#endif  // CODERUNNER_INIT_JOB_START_H_
