// The bodies of POST /v1/sandboxes and POST /v1/sandboxes/{id}/execute.
#ifndef CODERUNNER_API_SANDBOX_REQUESTS_H_
#define CODERUNNER_API_SANDBOX_REQUESTS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/sandboxes/sandbox_spec.h"
#include "coderunner/wire/execute_request.h"

namespace coderunner::api {

// Parses {"language"?, "ttl_s"?, "limits"?, "volume_id"?} for `tier`; `id`
// is the new sandbox's. Limits are checked against the tier as for a job,
// ttl_s must be 1..tier.max_sandbox_ttl_s (default tier.sandbox_ttl_s). Bad JSON or
// fields: InvalidArgument; over a tier bound: FailedPrecondition
// "limit_exceeded" naming limit and tier. A volume_id is only recorded
// (spec.volume.id); the manager resolves it. Pure; thread-safe.
StatusOr<sandboxes::SandboxCreateSpec> ParseSandboxCreate(std::string_view body,
                                                          const config::Config& config,
                                                          const config::TierConfig& tier,
                                                          std::string id);
// The same from a body already parsed (RouteTable's), read as it is: an
// empty body is ParseSandboxCreate's "{}", not null.
StatusOr<sandboxes::SandboxCreateSpec> SandboxCreateFromJson(const nlohmann::json& body,
                                                             const config::Config& config,
                                                             const config::TierConfig& tier,
                                                             std::string id);

// Parses {"code", "files"?, "timeout_ms"?}. Errors as ParseExecuteRequest
// (the code and files are checked as a /v1/execute body's). Pure; thread-safe.
StatusOr<sandboxes::SandboxCallSpec> ParseSandboxExecute(std::string_view body,
                                                         const wire::RequestCaps& caps);
// The same from a body already parsed (RouteTable's). Pure; thread-safe.
StatusOr<sandboxes::SandboxCallSpec> SandboxExecuteFromJson(const nlohmann::json& body,
                                                            const wire::RequestCaps& caps);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_SANDBOX_REQUESTS_H_
