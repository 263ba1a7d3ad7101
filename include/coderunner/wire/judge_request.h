// The judging part of a request: test cases to run the program against,
// how outputs compare, and whether to stop at the first failure. A body of
// POST /v1/execute, /v1/jobs or a /v1/jobs/batch entry that has "cases" is
// judged (judge::SubmissionJudge) instead of run once.
#ifndef CODERUNNER_WIRE_JUDGE_REQUEST_H_
#define CODERUNNER_WIRE_JUDGE_REQUEST_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/isolation/limits.h"
#include "coderunner/judge/output_match.h"
#include "coderunner/judge/submission_judge.h"

namespace coderunner::wire {

struct RequestCaps;
struct ExecuteRequest;

// One entry of "cases": {"stdin", "args", "files", "limits",
// "expected_output"}, each optional but "expected_output".
struct JudgeCaseRequest {
  std::string stdin_data;
  std::vector<std::string> args;
  std::vector<isolation::InputFile> files;
  isolation::LimitOverrides limits;  // Over the request's own "limits".
  std::string expected_output;
};

struct JudgeRequest {
  std::vector<JudgeCaseRequest> cases;
  // "compare": {"mode": "exact" | "trailing_whitespace" | "tokens" |
  // "numbers", "abs_tolerance", "rel_tolerance"}; trailing_whitespace by
  // default.
  judge::MatchRule rule;
  bool stop_at_first_failure = false;  // "stop_at_first_failure".
};

// The body's judging fields ("cases", "compare", "stop_at_first_failure");
// nullopt when it has no "cases". "compare" or "stop_at_first_failure"
// without "cases", an empty "cases" or more than caps.max_cases entries, a
// case that is not an object, lacks "expected_output" or has an unknown
// field, and a case's stdin, args, files or limits that a request's own
// would not pass (ExecuteRequestFromJson) are InvalidArgument
// "invalid_request" (or "invalid_path") naming "cases[<i>]". Pure.
StatusOr<std::optional<JudgeRequest>> ParseJudgeFields(const nlohmann::json& body,
                                                       const RequestCaps& caps);

// The plan judging `request` (which has a JudgeRequest) as job `job`, built
// from it by BuildJobSpec under `tier`: each case's limits are the job's
// with the case's overrides, resolved against the same bounds (a case may
// not exceed what its request could ask for: "limit_exceeded"). Pure.
StatusOr<judge::JudgePlan> BuildJudgePlan(const ExecuteRequest& request,
                                          const isolation::JobSpec& job,
                                          const config::Config& config,
                                          const config::TierConfig* tier);

}  // namespace coderunner::wire

#endif  // CODERUNNER_WIRE_JUDGE_REQUEST_H_
