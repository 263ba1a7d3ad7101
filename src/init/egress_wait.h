// egress_wait: before a job with an egress allowlist starts, coderunner-init
// waits until the service's proxy listens on loopback inside the
// container's network namespace (the service makes that socket once the
// container runs; see coderunner/egress/egress_proxy.h). The job could not
// be started before: its first request would be refused by the kernel.
#ifndef CODERUNNER_INIT_EGRESS_WAIT_H_
#define CODERUNNER_INIT_EGRESS_WAIT_H_

#include <signal.h>

// The longest the wait lasts, ms.
enum { kEgressWaitMs = 10000 };

// Connects to 127.0.0.1:`port` until it accepts (then closes: the proxy
// logs nothing for a connection that sends nothing), `*stop` is set, or
// kEgressWaitMs pass. Returns 0 once it accepted, else -1 after writing why
// to stderr.
int AwaitEgressProxy(int port, volatile sig_atomic_t* stop);

#endif  // CODERUNNER_INIT_EGRESS_WAIT_H_
