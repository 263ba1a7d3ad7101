// ExecuteRequest: the body of POST /v1/execute, parsed and validated.
#ifndef CODERUNNER_WIRE_EXECUTE_REQUEST_H_
#define CODERUNNER_WIRE_EXECUTE_REQUEST_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/config/tier_limits.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/isolation/limits.h"
#include "coderunner/wire/judge_request.h"

namespace coderunner::wire {

enum class OutputEncoding { kUtf8, kBase64 };

struct ExecuteRequest {
  std::optional<std::string> language;
  std::string code;
  std::string stdin_data;
  std::vector<std::string> args;
  std::vector<isolation::InputFile> files;  // Contents already decoded.
  isolation::LimitOverrides limits;
  OutputEncoding output_encoding = OutputEncoding::kUtf8;
  // "inputs": any JSON value, written to /workspace/params.json; "" if absent.
  std::string inputs_json;
  // "volume_id": a persistent volume of the caller's, mounted at /output.
  std::string volume_id;
  // "cases" (and "compare", "stop_at_first_failure"): judge the program
  // against them (judge_request.h).
  std::optional<JudgeRequest> judge;
  // "packages": {"python": [...]} or {"npm": [...]}: requirements as
  // given; BuildJobSpec checks them (packages::CheckPackageRequest).
  std::vector<std::string> python_packages;
  std::vector<std::string> npm_packages;
  // "network": "allowlist" (else "none", the default): the job reaches its
  // tier's allowed hosts through the service's proxy; BuildJobSpec checks
  // it (wire/egress_request.h).
  bool network_allowlist = false;
};

// Name of the inputs file in the workspace.
inline constexpr const char* kParamsFile = "params.json";

// Caps on request shape, beyond the body size limit.
struct RequestCaps {
  int max_json_depth = kDefaultMaxJsonDepth;  // Nesting (server.max_json_depth).
  int max_files = 1000;                       // Entries in "files".
  int max_file_depth = 16;                    // Components in one file path.
  int64_t max_files_bytes = 64LL << 20;       // Decoded bytes of all files together.
  int64_t max_inputs_bytes = 1LL << 20;       // Serialized "inputs" (params.json).
  int max_args = 1000;                        // Entries in "args".
  int64_t max_cases = 1000;                   // Entries in "cases".
};

// The caps of config `files:` and server.max_json_depth.
RequestCaps CapsFromConfig(const config::Config& config);

// Parses `body` with ParseBoundedJson (its errors: "invalid_json",
// "json_too_deep" past caps.max_json_depth; no size bound: the body's size
// is bounded where it entered, server.max_body_bytes). A missing
// or mistyped field, an unknown field, a bad path or bad base64 is
// InvalidArgument "invalid_request" (or "invalid_path"), naming the field.
// Pure; thread-safe.
StatusOr<ExecuteRequest> ParseExecuteRequest(std::string_view body, const RequestCaps& caps);

// The same for a body already parsed within bounds where it entered (its
// depth is not checked again): a /v1/jobs submission, a batch entry, a
// stored request, a translated Piston request. Pure; thread-safe.
StatusOr<ExecuteRequest> ExecuteRequestFromJson(const nlohmann::json& body,
                                                const RequestCaps& caps);

// Turns a parsed request into a runnable job with id `job_id`. An unknown
// language is InvalidArgument "unknown_language" listing the known ones;
// limits are resolved against the configured defaults and maxima
// (FailedPrecondition "limit_exceeded" above a maximum). A `tier`, when
// given, supplies the maxima for timeout_ms, cpu_ms (its budget) and
// memory_bytes (replacing limits.max) and is named in the error; `use`
// picks the defaults (config::TierLimitBounds: Execute mode's runs default
// to the budget). Packages are checked against the policy of packages.*
// and the tier (packages::CheckPackageRequest's errors). The job's runtime
// is the tier's runtime if set, else the language's, else ""
// (sandbox.runtime applies).
StatusOr<isolation::JobSpec> BuildJobSpec(const ExecuteRequest& request,
                                          const config::Config& config, std::string job_id,
                                          const config::TierConfig* tier = nullptr,
                                          config::LimitsUse use = config::LimitsUse::kJob);

// One job per configured language as a request naming only the language
// would build it (default limits; the auth.none tier when auth is off), for
// seeding the warm pool. Languages whose defaults do not build are left out.
// Pure; thread-safe.
std::vector<isolation::JobSpec> DefaultJobShapes(const config::Config& config);

}  // namespace coderunner::wire

#endif  // CODERUNNER_WIRE_EXECUTE_REQUEST_H_
