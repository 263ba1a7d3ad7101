// One attempt of an intent: the model writes the program (generate_code),
// it runs as an ordinary job (execute), and a failed run goes back to the
// model with a request for the minimal fix.
#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "code_extract.h"
#include "coderunner/common/utf8.h"
#include "coderunner/config/tier_limits.h"
#include "coderunner/intent/intent_pipeline.h"
#include "coderunner/jobs/redactor.h"
#include "coderunner/wire/result_json.h"
#include "error_summary.h"
#include "intent_execution.h"
#include "intent_progress.h"
#include "prompts.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;

// Each attempt's output as the record keeps it (the final run's is whole,
// under "result").
constexpr size_t kAttemptOutputBytes = 64 << 10;
// What of a failed run's output goes back to the model.
constexpr size_t kFeedbackTailBytes = 3000;
// Below this much execution budget a run is not worth starting.
constexpr int64_t kMinRunMs = 200;

std::string Tail(std::string_view s, size_t n) {
  if (s.size() > n) s = s.substr(s.size() - n);
  return SanitizeUtf8(s);
}

std::string Outcome(const isolation::RunResult& r, const isolation::JobSpec& spec) {
  switch (r.status) {
    case isolation::RunStatus::kTimeout:
      return "was stopped at its time limit of " + std::to_string(spec.limits.timeout_ms) + " ms";
    case isolation::RunStatus::kOom:
      return "ran out of memory (limit " + std::to_string(spec.limits.memory_bytes >> 20) +
             " MiB) and was killed";
    case isolation::RunStatus::kSucceeded:
      return "exited with code 0 but printed nothing to stdout (print the answer)";
    default:
      break;
  }
  std::string out = "exited with code " + std::to_string(r.exit_code);
  if (r.signal != 0) out = "was killed by signal " + std::to_string(r.signal);
  if (!r.error.ok()) out += " (" + r.error.message() + ")";
  return out;
}

json SummaryJson(const ErrorSummary& e) {
  if (e.type.empty() && e.message.empty()) return nullptr;
  return {{"type", e.type},
          {"message", e.message},
          {"line", e.line > 0 ? json(e.line) : json(nullptr)}};
}

std::string SummaryText(const ErrorSummary& e) {
  std::string s = e.type + (e.type.empty() || e.message.empty() ? "" : ": ") + e.message;
  if (e.line > 0) s += " (line " + std::to_string(e.line) + ")";
  return s;
}

// A run succeeded when it exited 0 and printed something (stdout beyond
// whitespace) or left artifacts.
bool Succeeded(const isolation::RunResult& r) {
  return r.status == isolation::RunStatus::kSucceeded &&
         (r.stdout_data.find_first_not_of(" \t\r\n") != std::string::npos || !r.artifacts.empty());
}

}  // namespace

IntentPipeline::Execution::AttemptEnd IntentPipeline::Execution::Attempt(int k, Attempts& a) {
  const std::string of = "attempt " + std::to_string(k) + " of " + std::to_string(a.max);
  progress_.Start(Stage::kGenerateCode, of, Now());
  Save({Stage::kGenerateCode});
  auto reply = Ask(a.messages);
  if (!reply.ok()) {
    FailLlm(Stage::kGenerateCode, reply.status());
    return AttemptEnd::kEnded;
  }
  std::string code = ProgramOf(k, reply->content, a);
  a.messages.push_back({"assistant", reply->content});
  if (code.empty()) {
    RecordNoCode(k, of, a);
    return AttemptEnd::kRetry;
  }
  a.code = code;
  int lines = static_cast<int>(std::count(code.begin(), code.end(), '\n'));
  progress_.End(Stage::kGenerateCode, StageStatus::kSucceeded,
                of + ": " + std::to_string(lines) + " lines", Now());
  if (verify_ != VerifyMode::kOff && a.checks.empty() && !WriteChecks(a)) {
    return AttemptEnd::kEnded;
  }
  progress_.Start(Stage::kExecute, of, Now());
  Save({Stage::kGenerateCode, Stage::kExecute});

  JoinedProgram program = JoinProgram(req_.language, a.preamble, code);
  std::optional<ChecksReport> report;
  std::optional<isolation::JobSpec> spec = RunAttempt(program, a, &report);
  if (!spec) return AttemptEnd::kEnded;
  json attempt = RecordRun(k, code, *spec, a.result);
  if (a.result.status == isolation::RunStatus::kError) {
    // The engine or the service failed, not the program: no retry helps.
    progress_.AddAttempt(attempt);
    Fail(store::JobStatus::kError, Stage::kExecute, a.result.error.reason(),
         a.result.error.message());
    return AttemptEnd::kEnded;
  }
  if (Succeeded(a.result) && verify_ != VerifyMode::kOff) {
    return Verify(of, std::move(attempt), report.value_or(ChecksReport{}), a);
  }
  if (Succeeded(a.result)) {
    progress_.AddAttempt(attempt);
    progress_.End(Stage::kExecute, StageStatus::kSucceeded,
                  of + ": exit 0 in " + std::to_string(a.result.metrics.run_ms) + " ms", Now());
    Save({Stage::kExecute});
    return AttemptEnd::kSucceeded;
  }
  checks_failed_ = false;  // The program itself failed this time.
  AskForRepair(of, std::move(attempt), program, *spec, a);
  return AttemptEnd::kRetry;
}

void IntentPipeline::Execution::RecordNoCode(int k, const std::string& of, Attempts& a) {
  progress_.AddAttempt({{"attempt", k},
                        {"code", ""},
                        {"result", nullptr},
                        {"error", {{"type", "NoCode"}, {"message", "the reply held no program"}}}});
  a.last_outcome = "the model's reply held no program";
  a.last_error = {{"type", "NoCode"}, {"message", a.last_outcome}, {"line", nullptr}};
  progress_.End(Stage::kGenerateCode, StageStatus::kFailed, of + ": " + a.last_outcome, Now());
  Save({Stage::kGenerateCode});
  FailedAttempt failed;
  failed.no_code = true;
  a.messages.push_back({"user", FixMessage(failed)});
}

int64_t IntentPipeline::Execution::ExecMsLeft() const {
  return config::IntentExecBudgetMs(config(), tier_) - progress_.exec_ms_used();
}

bool IntentPipeline::Execution::ExecBudgetUsedUp() const { return ExecMsLeft() < kMinRunMs; }

void IntentPipeline::Execution::FailExecBudget(const Attempts& a) {
  if (checks_failed_) {
    return FailUnverified("the execution budget of " +
                              std::to_string(config::IntentExecBudgetMs(config(), tier_)) +
                              " ms is used up",
                          kExecBudgetExhausted);
  }
  // A run stopped at what was left of the budget ran out of time: the
  // intent did too.
  bool timed_out = have_run_ && a.result.status == isolation::RunStatus::kTimeout;
  std::string whose = tier_ != nullptr ? "tier " + tier_->name : "limits.max.timeout_ms";
  if (config().intents.exec_budget_ms > 0 &&
      config().intents.exec_budget_ms < config::TierBudgetMs(config(), tier_)) {
    whose = "intents.exec_budget_ms";
  }
  Fail(timed_out ? store::JobStatus::kTimeout : store::JobStatus::kFailed, Stage::kExecute,
       kExecBudgetExhausted,
       "the execution budget of " + std::to_string(config::IntentExecBudgetMs(config(), tier_)) +
           " ms (" + whose + ") is used up" +
           (a.last_outcome.empty() ? "" : "; the last run " + a.last_outcome),
       {{"last_error", a.last_error}});
}

std::optional<isolation::JobSpec> IntentPipeline::Execution::RunAttempt(
    const JoinedProgram& program, Attempts& a, std::optional<ChecksReport>* report) {
  if (ExecBudgetUsedUp()) {
    FailExecBudget(a);
    return std::nullopt;
  }
  StatusOr<isolation::JobSpec> spec = AttemptSpec(program.text, a.caps);
  if (!spec.ok()) {
    Fail(store::JobStatus::kError, Stage::kExecute, spec.status().reason(),
         spec.status().message());
    return std::nullopt;
  }
  std::string marker, cache_key;
  if (verify_ != VerifyMode::kOff && !a.checks.empty()) {
    // Keyed by the limits asked for, not by what is left of the budget: a
    // run that ended within what is left now answers as it did then.
    cache_key = AddChecks(a, *spec, &marker);
    if (!cache_key.empty()) *report = CachedVerifyRun(cache_key, a);
    if (*report && a.result.metrics.run_ms <= ExecMsLeft()) return std::move(*spec);
    report->reset();
  }
  spec->limits = config::CapRunTime(spec->limits, ExecMsLeft());
  auto t0 = std::chrono::steady_clock::now();
  a.result = executor_.RunSpec(*spec, channel_, /*fail_fast=*/false);
  progress_.AddExecMs(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  if (a.result.status == isolation::RunStatus::kCancelled || cancelled()) {
    FinishCancelled();
    return std::nullopt;
  }
  if (!marker.empty()) {
    *report = ReadChecksReport(a.result.stdout_data, marker);
    a.result.stdout_data = (*report)->program_stdout;
    CacheVerifyRun(cache_key, a, **report);
  }
  return std::move(*spec);
}

StatusOr<isolation::JobSpec> IntentPipeline::Execution::AttemptSpec(const std::string& program,
                                                                    const wire::RequestCaps& caps) {
  // The attempt is an ordinary job: parsed and bounded as /v1/execute
  // would be, under the intent's tier.
  CR_ASSIGN_OR_RETURN(wire::ExecuteRequest request, AttemptRequest(req_, program, caps));
  CR_ASSIGN_OR_RETURN(
      isolation::JobSpec spec,
      wire::BuildJobSpec(request, config(), record_.id, tier_, config::LimitsUse::kExecuteMode));
  if (spec.volume.id.empty()) return spec;
  if (p_.volumes_ == nullptr) {
    return FailedPreconditionError("persistent volumes are not available", kVolumesUnavailable);
  }
  CR_ASSIGN_OR_RETURN(spec.volume, p_.volumes_->Resolve(record_.tenant, nullptr, spec.volume.id));
  return spec;
}

json IntentPipeline::Execution::RecordRun(int k, const std::string& code,
                                          const isolation::JobSpec& spec,
                                          const isolation::RunResult& result) {
  isolation::RunResult redacted = result;
  redacted.stdout_data = jobs::RedactSecrets(result.stdout_data);
  redacted.stderr_data = jobs::RedactSecrets(result.stderr_data);
  final_result_ = wire::ResultToJson(spec, redacted, wire::OutputEncoding::kUtf8);
  final_result_["cached"] = false;
  have_run_ = true;
  image_digest_ = result.image_digest;
  isolation::RunResult brief = std::move(redacted);
  if (brief.stdout_data.size() > kAttemptOutputBytes) {
    brief.stdout_data.resize(kAttemptOutputBytes);
    brief.stdout_truncated = true;
  }
  if (brief.stderr_data.size() > kAttemptOutputBytes) {
    brief.stderr_data.resize(kAttemptOutputBytes);
    brief.stderr_truncated = true;
  }
  return {{"attempt", k},
          {"code", code},
          {"result", wire::ResultToJson(spec, brief, wire::OutputEncoding::kUtf8)},
          {"error", nullptr}};
}

void IntentPipeline::Execution::AskForRepair(const std::string& of, json attempt,
                                             const JoinedProgram& program,
                                             const isolation::JobSpec& spec, Attempts& a) {
  const isolation::RunResult& result = a.result;
  ErrorSummary summary =
      SummarizeError(req_.language, result.stderr_data, a.lang->file, program.line_offset);
  a.last_outcome = Outcome(result, spec);
  a.last_error = SummaryJson(summary);
  attempt["error"] = a.last_error;
  progress_.AddAttempt(std::move(attempt));
  std::string summary_text = SummaryText(summary);
  progress_.End(Stage::kExecute, StageStatus::kFailed,
                of + ": " + a.last_outcome + (summary_text.empty() ? "" : ": " + summary_text),
                Now());
  Save({Stage::kExecute});
  FailedAttempt failed;
  failed.outcome = a.last_outcome;
  failed.error = summary;
  failed.stderr_tail = Tail(result.stderr_data, kFeedbackTailBytes);
  failed.stdout_tail = Tail(result.stdout_data, kFeedbackTailBytes / 3);
  a.messages.push_back({"user", FixMessage(failed)});
}

}  // namespace coderunner::intent
