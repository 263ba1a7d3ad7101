// init_options: coderunner-init's command line (see coderunner_init.c for
// the usage). The service builds it, but the parser still treats it as
// untrusted: every value is checked, and nothing is copied (the fields point
// into argv, which outlives them). Pure; thread-compatible.
#ifndef CODERUNNER_INIT_INIT_OPTIONS_H_
#define CODERUNNER_INIT_INIT_OPTIONS_H_

#include "output_guard.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { kMaxEnv = 64, kMaxScratch = 4 };

// What init was asked to do.
typedef struct {
  char* envp[kMaxEnv + 1];  // The job's whole environment (-e), NULL-terminated.
  const char* stdin_path;   // -i; NULL: /dev/null.
  const char* go_fifo;      // -W; NULL: a cold job.
  OutputBounds out;         // -o, -q, -f, -n, -r, -m.
  long long cpu_limit_ms;   // -c; 0: no watchdog.
  // -p: the egress proxy's port on loopback, awaited before the job
  // starts (egress_wait.h); 0: the job has no egress.
  int egress_port;
  // -t (repeatable): writable directories (/tmp) emptied between the cases
  // of a series, as /output is.
  const char* scratch[kMaxScratch];
  int nscratch;
  char** command;  // After "--"; NULL-terminated, at least one word.
  // -P N (with -W): the first N words of `command` are the prestart
  // command, the rest the job's (prestart.h); 0: no prestart.
  int prestart_words;
  // -x: not PID 1 but a process the service starts in a running sandbox (an
  // engine exec): install the filter and become the command. Takes no
  // other option.
  int exec_in_place;
} InitOptions;

// Parses argv[1..argc) into `o` (zeroed first). Returns 0, or -1 after
// writing a usage message to stderr: an unknown option, a missing or
// negative count, more than kMaxEnv -e or kMaxScratch -t values, -x with
// another option, no command, or -P without -W or without a job's command
// after its N words.
int ParseInitOptions(int argc, char** argv, InitOptions* o);

#ifdef __cplusplus
}
#endif

#endif  // CODERUNNER_INIT_INIT_OPTIONS_H_
