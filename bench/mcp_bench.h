// service_bench's "mcp" section (issue 33): what a run costs through the
// MCP server's run_code over Streamable HTTP, against POST /v1/execute in
// the same run.
#ifndef CODERUNNER_BENCH_MCP_BENCH_H_
#define CODERUNNER_BENCH_MCP_BENCH_H_

#include <httplib.h>

namespace bench {

// `jobs` python print(1+1) runs each way, interleaved, through `service`:
// POST /v1/execute, and tools/call run_code on one MCP session (the
// answer read from its event stream, as a client does). Prints p50 p95
// p99 of each and the MCP/REST p50 ratio (issue 33 allows at most 1.2x).
void McpLatency(httplib::Client& service, int jobs);

}  // namespace bench

#endif  // CODERUNNER_BENCH_MCP_BENCH_H_
