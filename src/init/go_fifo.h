// go_fifo: coderunner-init's end of the warm pool's "go" FIFO: waits for
// the next go message (go_message.h) and builds the job's argv from it.
// Not thread-safe (init is single-threaded); the results point into
// static storage, valid until the next AwaitGo.
#ifndef CODERUNNER_INIT_GO_FIFO_H_
#define CODERUNNER_INIT_GO_FIFO_H_

#include <signal.h>

#include "go_message.h"

// Words of the language's command a job's argv starts with, at most.
enum { kMaxCommand = 63 };

// Waits for the next go message on `fifo`, which stays open through a
// series (the service writes a case's go as soon as it has the last
// case's trailer, and a FIFO with no reader would refuse that write).
// `*stop` (set by init's SIGUSR1 handler) ends the wait; between the cases
// of a series (`between_cases`) it is cleared instead, as it was meant for
// the case that just ended. Returns the message, or NULL (with a message
// on stderr) if it is malformed or a stop ended the wait.
const GoMessage* AwaitGo(const char* fifo, int between_cases, volatile sig_atomic_t* stop);

// The job's argv: `cmd` (NULL-terminated) followed by `go`'s arguments.
char** JobArgv(char** cmd, const GoMessage* go);

#endif  // CODERUNNER_INIT_GO_FIFO_H_
