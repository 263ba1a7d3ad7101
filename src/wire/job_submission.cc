#include "coderunner/wire/job_submission.h"

#include <utility>

#include "coderunner/common/bounded_json.h"

namespace coderunner::wire {

using nlohmann::json;

StatusOr<JobSubmission> ParseJobSubmission(std::string_view body, const SubmissionRules& rules) {
  JsonBounds bounds;
  bounds.max_depth = rules.caps.max_json_depth;
  CR_ASSIGN_OR_RETURN(json parsed, ParseBoundedJson(body, bounds));
  return JobSubmissionFromJson(std::move(parsed), rules);
}

StatusOr<JobSubmission> JobSubmissionFromJson(json body, const SubmissionRules& rules) {
  JobSubmission out;
  if (body.is_object()) {
    if (auto it = body.find(kCallbackUrlField); it != body.end()) {
      if (!it->is_null()) {
        if (!it->is_string()) {
          return InvalidArgumentError("callback_url: must be a string", "invalid_request");
        }
        out.callback_url = it->get<std::string>();
        if (rules.check_callback_url)
          CR_RETURN_IF_ERROR(rules.check_callback_url(out.callback_url));
      }
      body.erase(it);
    }
    if (auto it = body.find(kCacheField); it != body.end()) {
      if (!it->is_null()) {
        if (!it->is_boolean()) {
          return InvalidArgumentError("cache: must be a boolean", "invalid_request");
        }
        out.use_cache = it->get<bool>();
      }
      body.erase(it);
    }
  }
  CR_ASSIGN_OR_RETURN(out.request, ExecuteRequestFromJson(body, rules.caps));
  out.body = std::move(body);
  return out;
}

}  // namespace coderunner::wire
