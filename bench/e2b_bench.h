// service_bench's "e2b" section (issue 34): from an E2B Sandbox.create()
// to the first output of its first command, as the SDK makes the calls,
// against POST /v1/sandboxes and a first execute in the same run.
#ifndef CODERUNNER_BENCH_E2B_BENCH_H_
#define CODERUNNER_BENCH_E2B_BENCH_H_

#include <httplib.h>

#include <string>

namespace bench {

// `rounds` sandboxes each way, interleaved, one at a time: POST
// /v1/sandboxes then POST .../execute print("hi"), and POST
// /e2b/v2/sandboxes then process.Process/Start `echo hi` read to its first
// output; then `parallel` E2B creations to first output at once. Prints
// p50 p95 p99 and the ratios to the /v1 p50; and a warm sandbox's
// commands.run('echo hi') and runCode('1+1') against /v1's execute in it.
// `server` is host:port.
void E2bLatency(const std::string& server, int rounds, int parallel);

}  // namespace bench

#endif  // CODERUNNER_BENCH_E2B_BENCH_H_
