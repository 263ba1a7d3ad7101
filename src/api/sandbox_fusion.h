// SandboxFusion's POST /run_code in coderunner's terms (docs/sandbox-fusion.md):
// its request becomes a /v1 job, and the job's result its
// {"status", "message", "compile_result", "run_result", "files"}. Pure
// functions; thread-safe.
#ifndef CODERUNNER_API_SANDBOX_FUSION_H_
#define CODERUNNER_API_SANDBOX_FUSION_H_

#include <nlohmann/json.hpp>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"

namespace coderunner::api {

// The reason of a request SandboxFusion's FastAPI would refuse with 422;
// the message is "<field>: <why>".
inline constexpr char kReasonSandboxFusionInvalid[] = "sandbox_fusion_invalid";

// FastAPI's {"detail": [{"loc": ["body", "<field>"], "msg", "type"}]} for a
// kReasonSandboxFusionInvalid status.
nlohmann::json SandboxFusionInvalidJson(const Status& status);

// A /run_code request as the body of a /v1 job: its language (python, cpp,
// nodejs, go, java, bash, typescript, rust: coderunner's own names but
// javascript for nodejs), code, stdin, files ({path: base64 or null}) and
// limits (run_timeout in seconds, memory_limit_MB; compile_timeout is the
// language's compile_timeout_ms here). kReasonSandboxFusionInvalid for a
// missing code or language, a language not served, a file that is not
// base64, fetch_files (not available: the job's directory is read-only),
// or a field of the wrong type.
StatusOr<nlohmann::json> SandboxFusionToJob(const nlohmann::json& request,
                                            const config::Config& config);

// SandboxFusion's answer for a finished job's `result` (the /v1 result
// JSON): run_result and compile_result (null when there was none) each
// {"status": Finished | TimeLimitExceeded | Error, "execution_time" (s),
// "return_code" (-N for a signal N, null after a timeout), "stdout",
// "stderr"}; "status" Success, Failed (a non-zero return code, a timeout,
// a program that did not compile) or SandboxError (ours).
nlohmann::json SandboxFusionResponse(const nlohmann::json& result);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_SANDBOX_FUSION_H_
