// JobSubmission: the body of POST /v1/jobs and POST /v1/execute (and of
// each /v1/jobs/batch entry), parsed once at the HTTP edge into what the job
// service takes.
#ifndef CODERUNNER_WIRE_JOB_SUBMISSION_H_
#define CODERUNNER_WIRE_JOB_SUBMISSION_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/wire/execute_request.h"

namespace coderunner::wire {

// How a submission is checked: the request caps, and the check of a
// "callback_url" (empty: any string is taken). The check must be pure and
// thread-safe.
struct SubmissionRules {
  RequestCaps caps;
  std::function<Status(const std::string&)> check_callback_url;
};

// A parsed submission: the request to run, the body it came from (what the
// job's record stores, so that recovery and replay rebuild the same run) and
// the job-only options, which ride along but are not part of what runs.
struct JobSubmission {
  ExecuteRequest request;
  // The body's JSON object without the job-only fields.
  nlohmann::json body;
  std::string callback_url;  // "" for none.
  bool use_cache = true;     // false: never read the cache (still written).
};

// Names of the job-only fields of a submission body.
inline constexpr const char* kCallbackUrlField = "callback_url";
inline constexpr const char* kCacheField = "cache";

// Parses `body` with ParseBoundedJson within rules.caps.max_json_depth
// ("invalid_json", "json_too_deep"), then as JobSubmissionFromJson. Pure;
// thread-safe.
StatusOr<JobSubmission> ParseJobSubmission(std::string_view body, const SubmissionRules& rules);

// Splits the job-only fields off `body` and parses the rest as
// ParseExecuteRequest does (its depth is not checked again: `body` was
// parsed within bounds where it entered). Errors, first found first:
// InvalidArgument "invalid_request" for a "callback_url" that is not a
// string, rules.check_callback_url's error, "invalid_request" for a "cache"
// that is not a boolean, then those of ParseExecuteRequest (a body that is
// not an object among them). Null job-only fields are the defaults. Pure;
// thread-safe.
StatusOr<JobSubmission> JobSubmissionFromJson(nlohmann::json body, const SubmissionRules& rules);

}  // namespace coderunner::wire

#endif  // CODERUNNER_WIRE_JOB_SUBMISSION_H_
