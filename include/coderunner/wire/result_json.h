// JSON rendering of a job's result for the HTTP API.
#ifndef CODERUNNER_WIRE_RESULT_JSON_H_
#define CODERUNNER_WIRE_RESULT_JSON_H_

#include <nlohmann/json.hpp>

#include "coderunner/isolation/job_spec.h"
#include "coderunner/wire/execute_request.h"

namespace coderunner::wire {

// The /v1/execute response body. Output bytes are made valid UTF-8 (invalid
// sequences become U+FFFD) unless `encoding` is kBase64, which is exact.
// A result with RunResult::runtime set (native jobs) carries it as "runtime";
// a container's result has no such field. Pure; thread-safe.
nlohmann::json ResultToJson(const isolation::JobSpec& job, const isolation::RunResult& result,
                            OutputEncoding encoding);

// A run's metrics: {"wall_ms","run_ms","cpu_ms","memory_peak_bytes"}.
nlohmann::json MetricsJson(const isolation::RunMetrics& metrics);

// The "egress" of a result or a sandbox call: every request through the
// proxy ({method, host, port, address, bytes_out, bytes_in, outcome,
// detail, duration_ms}), "dropped" and "bytes".
nlohmann::json EgressToJson(const egress::EgressLog& log);

// A program's output as a result shows it: base64, or UTF-8 with invalid
// sequences replaced and (when `truncated`, a cap having cut it) a partial
// last character dropped.
std::string RenderOutput(const std::string& bytes, bool truncated, OutputEncoding encoding);

// "SIGKILL" for 9 etc.; "SIG<n>" for signals without a name here.
std::string SignalName(int signal);
// Its inverse: 9 for "SIGKILL", n for "SIG<n>" (1 to 127); 0 for anything
// else.
int SignalNumber(std::string_view name);

}  // namespace coderunner::wire

#endif  // CODERUNNER_WIRE_RESULT_JSON_H_
