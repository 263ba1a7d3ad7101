// The gate of code_runner.enabled: false. Every route that runs code
// answers 503 code_runner_disabled before any handler runs; the others
// (reading jobs, languages, /readyz, /metrics) are untouched. Private to
// src/api.
#ifndef CODERUNNER_SRC_API_CODE_RUNNER_GATE_H_
#define CODERUNNER_SRC_API_CODE_RUNNER_GATE_H_

#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::api {

// Reason of the refusal (503).
inline constexpr char kReasonCodeRunnerDisabled[] = "code_runner_disabled";

// Whether `method` `path` runs code: POST /v1/execute, /v1/jobs,
// /v1/jobs/batch, /v1/jobs/{id}/replay, /v1/intents, /v1/sandboxes,
// /v1/sandboxes/{id}/execute, /api/v2/execute, /api/v2/piston/execute.
// Pure; thread-safe.
bool RunsCode(std::string_view method, std::string_view path);

// Unavailable kReasonCodeRunnerDisabled, naming code_runner.enabled.
Status CodeRunnerDisabledError();

}  // namespace coderunner::api

#endif  // CODERUNNER_SRC_API_CODE_RUNNER_GATE_H_
