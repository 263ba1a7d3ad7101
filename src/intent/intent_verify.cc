// The verify step of an intent (verify_checks.h): the model writes checks
// for its program, they run with it in its container, and a failed check
// goes back to the model as a retry within the intent's budgets. How the
// checks are kept honest:
//  - they are written in a call of their own, from the task and the
//    program's code, never from its output;
//  - checks that crash or report nothing never verify anything;
//  - a check the model calls wrong is corrected in the open: the record
//    and the answer name each revision and its reason;
//  - in full mode the model also judges whether the output answers the
//    question as asked.
#include <nlohmann/json.hpp>
#include <string>

#include "code_extract.h"
#include "coderunner/common/ids.h"
#include "coderunner/common/utf8.h"
#include "coderunner/isolation/mechanism.h"
#include "coderunner/jobs/job_request.h"
#include "intent_execution.h"
#include "prompts.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;

// What of broken checks' own output goes back to the model.
constexpr size_t kChecksOutputTailBytes = 2000;
// The judge check's name in the record.
constexpr char kJudgeCheckName[] = "the output answers the question as asked";

std::string FailedCheckText(const CheckResult& c) {
  return std::string(CheckKindName(c.kind)) + " " + c.name +
         (c.detail.empty() ? "" : ": " + c.detail);
}

json FailedChecksJson(const std::vector<CheckResult>& checks) {
  std::vector<CheckResult> failed;
  for (const auto& c : checks) {
    if (!c.passed) failed.push_back(c);
  }
  return ChecksJson(failed);
}

// The judge's reply: "" when the output answers the task, else what it
// found (a reply that is not the JSON asked for is a problem too).
std::string JudgeProblem(const std::string& reply) {
  size_t open = reply.find('{');
  size_t close = reply.rfind('}');
  json verdict = open == std::string::npos || close == std::string::npos || close < open
                     ? json()
                     : json::parse(reply.substr(open, close - open + 1), nullptr, false);
  if (!verdict.is_object() || !verdict.contains("answers") || !verdict["answers"].is_boolean()) {
    return "the judge's reply was not the JSON asked for";
  }
  if (verdict["answers"].get<bool>()) return "";
  std::string problem = verdict.value("problem", "");
  return problem.empty() ? "the judge found it does not answer the task as asked" : problem;
}

json ReportJson(const isolation::RunResult& r, const ChecksReport& report) {
  return {{"exit_code", r.exit_code},
          {"stdout", report.program_stdout},
          {"stderr", r.stderr_data},
          {"run_ms", r.metrics.run_ms},
          {"cpu_ms", r.metrics.cpu_ms},
          {"memory_peak_bytes", r.metrics.memory_peak_bytes},
          {"image", r.image},
          {"image_digest", r.image_digest},
          {"checks", ChecksJson(report.checks)},
          {"checks_exit_code", report.checks_exit_code},
          {"checks_output", report.checks_output}};
}

}  // namespace

VerifyMode IntentPipeline::Execution::EffectiveVerifyMode(const config::Config& config,
                                                          const config::TierConfig* tier,
                                                          const IntentRequest& req) {
  std::string name = config.intents.verify;
  if (tier != nullptr && !tier->intent_verify.empty()) name = tier->intent_verify;
  if (!req.verify.empty()) name = req.verify;
  return ParseVerifyMode(name).value_or(VerifyMode::kOff);
}

std::string IntentPipeline::Execution::ProgramOf(int k, const std::string& reply, Attempts& a) {
  if (!checks_failed_) return ExtractCode(reply, req_.language);
  ProgramAndChecks split = SplitProgramAndChecks(reply, req_.language);
  if (!split.checks.empty()) {
    a.checks = split.checks;
    revisions_.push_back({{"attempt", k},
                          {"reason", split.wrong_check_reason.empty() ? "(no reason given)"
                                                                      : split.wrong_check_reason}});
  }
  return split.program.empty() && !split.checks.empty() ? a.code : split.program;
}

bool IntentPipeline::Execution::WriteChecks(Attempts& a) {
  CodeTask task{req_.intent, req_.language, a.lang->file, &a.preamble, !req_.volume_id.empty()};
  auto reply = Ask(ChecksMessages({&task, a.code, ChecksFileName(a.lang->file)}));
  if (!reply.ok()) {
    FailLlm(Stage::kGenerateCode, reply.status());
    return false;
  }
  ProgramAndChecks split = SplitProgramAndChecks(reply->content, req_.language);
  // A block without the "checks" comment is still the checks asked for.
  a.checks = !split.checks.empty() ? split.checks : split.program;
  return true;
}

std::string IntentPipeline::Execution::AddChecks(const Attempts& a, isolation::JobSpec& spec,
                                                 std::string* marker) const {
  const std::string file = ChecksFileName(a.lang->file);
  spec.files.push_back({file, JoinProgram(req_.language, a.preamble, a.checks).text, false});
  // The job cache's key of the run as asked (checks among its files, the
  // language's own command, the limits before the budget caps them), the
  // configured image standing in for its digest: per tenant, all inputs.
  std::string key;
  if (config().jobs.cache_ttl_s > 0 && spec.volume.id.empty() && !spec.egress) {
    key = "intent-verify-v1:" +
          jobs::CacheKey(spec, record_.tenant, spec.language.image, wire::OutputEncoding::kUtf8);
  }
  *marker = NewId("coderunner-verify");
  spec.language.command =
      VerifyCommand(spec.language.command, std::string(isolation::kWorkspaceMount) + "/" + file);
  spec.args.push_back(*marker);
  return key;
}

std::optional<ChecksReport> IntentPipeline::Execution::CachedVerifyRun(const std::string& key,
                                                                       Attempts& a) {
  auto hit = p_.store_.CacheGet(key, Now());
  if (!hit.ok() || !*hit) return std::nullopt;
  json cached = json::parse(**hit, nullptr, false);
  if (!cached.is_object() || !cached["checks"].is_array()) return std::nullopt;
  ChecksReport report;
  report.program_stdout = cached.value("stdout", "");
  report.checks_ran = true;
  report.cached = true;
  report.checks_exit_code = cached.value("checks_exit_code", -1);
  report.checks_output = cached.value("checks_output", "");
  report.checks = ChecksFromJson(cached["checks"]);
  isolation::RunResult r;
  r.status = isolation::RunStatus::kSucceeded;
  r.exit_code = cached.value("exit_code", 0);
  r.stdout_data = report.program_stdout;
  r.stderr_data = cached.value("stderr", "");
  r.metrics.run_ms = cached.value("run_ms", int64_t{0});
  r.metrics.cpu_ms = cached.value("cpu_ms", int64_t{0});
  r.metrics.memory_peak_bytes = cached.value("memory_peak_bytes", int64_t{0});
  r.image = cached.value("image", "");
  r.image_digest = cached.value("image_digest", "");
  r.reported_by_init = true;
  a.result = std::move(r);
  return report;
}

void IntentPipeline::Execution::CacheVerifyRun(const std::string& key, const Attempts& a,
                                               const ChecksReport& report) {
  // Only a whole run that ended on its own: its artifacts could not be
  // given again.
  const isolation::RunResult& r = a.result;
  if (key.empty() || r.status != isolation::RunStatus::kSucceeded || !report.checks_ran ||
      !r.artifacts.empty()) {
    return;
  }
  (void)p_.store_.CachePut(key, ReportJson(r, report).dump(),
                           Now() + config().jobs.cache_ttl_s * 1000);
}

IntentPipeline::Execution::AttemptEnd IntentPipeline::Execution::Verify(const std::string& of,
                                                                        json attempt,
                                                                        ChecksReport report,
                                                                        Attempts& a) {
  attempt["checks_code"] = a.checks;
  attempt["checks_cached"] = report.cached;
  // What the checks printed besides their CHECK lines shows why they broke.
  attempt["checks_output"] = report.checks_output;
  if (a.checks.empty() || !report.checks_ran || !report.AllPassed()) {
    return VerifyFailed(of, std::move(attempt), report, "", a);
  }
  if (verify_ == VerifyMode::kFull) {
    std::optional<std::string> problem = Judge(report.program_stdout);
    if (!problem) return AttemptEnd::kEnded;
    report.checks.push_back({CheckKind::kJudge, kJudgeCheckName, problem->empty(), *problem});
    if (!problem->empty()) return VerifyFailed(of, std::move(attempt), report, *problem, a);
  }
  attempt["checks"] = ChecksJson(report.checks);
  last_checks_ = report.checks;
  verified_ = true;
  checks_failed_ = false;
  ShowVerification();
  progress_.AddAttempt(std::move(attempt));
  progress_.End(Stage::kExecute, StageStatus::kSucceeded,
                of + ": exit 0 in " + std::to_string(a.result.metrics.run_ms) + " ms; " +
                    VerifiedSummary(report.checks),
                Now());
  Save({Stage::kExecute});
  return AttemptEnd::kSucceeded;
}

std::optional<std::string> IntentPipeline::Execution::Judge(const std::string& program_stdout) {
  auto reply = Ask(JudgeMessages(req_.intent, req_.inputs.is_null() ? "" : req_.inputs.dump(),
                                 SanitizeUtf8(program_stdout)));
  if (!reply.ok()) {
    FailLlm(Stage::kExecute, reply.status());
    return std::nullopt;
  }
  return JudgeProblem(reply->content);
}

IntentPipeline::Execution::AttemptEnd IntentPipeline::Execution::VerifyFailed(
    const std::string& of, json attempt, const ChecksReport& report,
    const std::string& judge_problem, Attempts& a) {
  FailedChecks failed;
  failed.checks_code = a.checks;
  failed.judge_problem = judge_problem;
  failed.broken =
      judge_problem.empty() && (a.checks.empty() || !report.checks_ran || report.Broken());
  std::string what;
  if (!judge_problem.empty()) {
    what = "the output does not answer the task as asked: " + judge_problem;
  } else if (failed.broken) {
    what = a.checks.empty()     ? "the model wrote no checks"
           : !report.checks_ran ? "its checks never reported (the output reached its cap?)"
                                : "its checks crashed or reported no check";
    const std::string& out = report.checks_output;
    failed.checks_output_tail =
        out.size() > kChecksOutputTailBytes ? out.substr(out.size() - kChecksOutputTailBytes) : out;
  } else {
    int n = 0;
    for (const auto& c : report.checks) {
      if (c.passed) continue;
      ++n;
      failed.failed.push_back(FailedCheckText(c));
    }
    what = std::to_string(n) + " of " + std::to_string(report.checks.size()) +
           " checks failed, the first: " + failed.failed.front();
  }
  last_checks_ = report.checks;
  verified_ = false;
  checks_failed_ = true;
  ShowVerification();
  a.last_outcome = "exited 0, but " + what;
  a.last_error = {{"type", "CheckFailed"}, {"message", what}, {"line", nullptr}};
  attempt["checks"] = ChecksJson(report.checks);
  attempt["error"] = a.last_error;
  progress_.AddAttempt(std::move(attempt));
  progress_.End(Stage::kExecute, StageStatus::kFailed, of + ": exit 0, but " + what, Now());
  Save({Stage::kExecute});
  a.messages.push_back({"user", ChecksFixMessage(failed, req_.language)});
  return AttemptEnd::kRetry;
}

void IntentPipeline::Execution::FailUnverified(const std::string& why,
                                               const std::string& budget_code, Stage stage) {
  Fail(store::JobStatus::kFailed, stage, kUnverified,
       "the program's checks never all passed; " + why,
       {{"failed_checks", FailedChecksJson(last_checks_)}, {"budget", budget_code}});
}

std::string IntentPipeline::Execution::VerifiedLine() const {
  if (verify_ == VerifyMode::kOff || verified_ != true) return "";
  std::string line = "Verified: " + VerifiedSummary(last_checks_);
  if (!revisions_.empty()) {
    line += " (the model corrected its checks " + std::to_string(revisions_.size()) +
            (revisions_.size() == 1 ? " time: " : " times, last: ") +
            revisions_.back().value("reason", "") + ")";
  }
  return line + ".";
}

void IntentPipeline::Execution::ShowVerification() {
  std::string summary;
  if (verified_ == true) {
    summary = VerifiedSummary(last_checks_);
  } else if (verified_ == false) {
    int failed = 0;
    for (const auto& c : last_checks_) failed += c.passed ? 0 : 1;
    summary = last_checks_.empty() ? "the checks did not run"
                                   : std::to_string(failed) + " of " +
                                         std::to_string(last_checks_.size()) + " checks failed";
  }
  progress_.SetVerification({{"mode", VerifyModeName(verify_)},
                             {"verified", verified_},
                             {"summary", summary},
                             {"checks", ChecksJson(last_checks_)},
                             {"revisions", revisions_}});
}

}  // namespace coderunner::intent
