#include "coderunner/intent/intent_pipeline.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>

#include "code_extract.h"
#include "coderunner/common/utf8.h"
#include "coderunner/intent/intent_request.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/jobs/redactor.h"
#include "coderunner/wire/execute_request.h"
#include "coderunner/wire/result_json.h"
#include "error_summary.h"
#include "intent_progress.h"
#include "preamble.h"
#include "prompts.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;
using store::JobStatus;

// Each attempt's output as the record keeps it (the final run's is whole,
// under "result").
constexpr size_t kAttemptOutputBytes = 64 << 10;
// What of a failed run's output goes back to the model.
constexpr size_t kFeedbackTailBytes = 3000;
// Below this much execution budget a run is not worth starting.
constexpr int64_t kMinRunMs = 200;
// Longest answer the formatter may give before the raw output is used.
constexpr size_t kMaxAnswerBytes = 4096;

std::string Tail(std::string_view s, size_t n) {
  if (s.size() > n) s = s.substr(s.size() - n);
  return SanitizeUtf8(s);
}

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

int64_t Now() { return jobs::NowMs(); }

// The words of an intent, so that a profile created for it matches the
// same intent next time (MatchScore drops stop words on the intent side).
std::vector<std::string> IntentWords(std::string_view intent) {
  std::vector<std::string> words;
  std::string w;
  for (size_t i = 0; i <= intent.size(); ++i) {
    unsigned char c = i < intent.size() ? static_cast<unsigned char>(intent[i]) : ' ';
    if (std::isalnum(c)) {
      w += static_cast<char>(std::tolower(c));
    } else if (!w.empty()) {
      if (w.size() >= 3) words.push_back(w);
      w.clear();
    }
  }
  return words;
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

}  // namespace

// One run of the pipeline for one intent. Owns its progress.
class IntentPipeline::Execution {
 public:
  Execution(IntentPipeline& p, const store::JobRecord& record, jobs::JobChannel& channel,
            jobs::JobExecutor& executor, IntentRequest request, const config::TierConfig* tier)
      : p_(p),
        record_(record),
        channel_(channel),
        executor_(executor),
        req_(std::move(request)),
        tier_(tier),
        started_(Now()),
        progress_(req_.intent, req_.language_source) {}

  void Go();

 private:
  const config::Config& config() const { return *p_.ctx_.config; }
  bool cancelled() const { return channel_.cancel_token().cancelled(); }

  // Commits the progress and announces `stages` (those that changed) on
  // /events.
  void Save(std::initializer_list<Stage> stages);
  // One model call within the token budget.
  StatusOr<ChatReply> Ask(std::vector<ChatMessage> messages);
  // Stage 1; nullopt after the intent was ended.
  std::optional<AgentProfile> Discover();
  // A model call failed in `stage`: ends the intent.
  void FailLlm(Stage stage, const Status& status);
  // Ends the intent as `status` with error {code, stage, message, ...extra}.
  void Fail(store::JobStatus status, Stage stage, const std::string& code,
            const std::string& message, json extra = json::object());
  void FinishCancelled();
  // Completes the record with the final run as its result.
  void Complete(store::JobStatus status);

  IntentPipeline& p_;
  const store::JobRecord& record_;
  jobs::JobChannel& channel_;
  jobs::JobExecutor& executor_;
  IntentRequest req_;
  const config::TierConfig* tier_;
  int64_t started_;
  IntentProgress progress_;
  bool have_run_ = false;
  json final_result_;  // The last run's result (redacted), once there was a run.
  Stage final_stage_ = Stage::kFormatResult;  // Where the intent ended.
  std::string image_digest_;
};

void IntentPipeline::Execution::Save(std::initializer_list<Stage> stages) {
  Status s = p_.ctx_.store->UpdateProgress(record_.id, progress_.ToJson().dump());
  if (!s.ok() && s.reason() != "job_terminal") {
    spdlog::warn("intent {}: cannot store progress: {}", record_.id, s.ToString());
  }
  for (Stage stage : stages) channel_.PublishStage(progress_.StageJson(stage).dump());
}

StatusOr<ChatReply> IntentPipeline::Execution::Ask(std::vector<ChatMessage> messages) {
  if (cancelled()) return FailedPreconditionError("the intent was cancelled", "cancelled");
  int64_t left = config().intents.token_budget - progress_.tokens_used();
  if (left <= 0) {
    return ResourceExhaustedError("the token budget of " +
                                      std::to_string(config().intents.token_budget) +
                                      " tokens (intents.token_budget) is used up",
                                  "token_budget_exhausted");
  }
  ChatRequest request;
  request.messages = std::move(messages);
  request.max_tokens = static_cast<int>(std::min<int64_t>(config().llm.max_tokens, left));
  auto reply = p_.llm_->Complete(request, &channel_.cancel_token());
  if (reply.ok()) progress_.AddUsage(*reply);
  return reply;
}

void IntentPipeline::Execution::Complete(store::JobStatus status) {
  // The stage that ended the intent, and those skipped after it.
  if (final_stage_ == Stage::kDiscoverAgent) {
    Save({Stage::kDiscoverAgent, Stage::kGenerateCode, Stage::kExecute, Stage::kFormatResult});
  } else if (final_stage_ == Stage::kGenerateCode) {
    Save({Stage::kGenerateCode, Stage::kExecute, Stage::kFormatResult});
  } else if (final_stage_ == Stage::kExecute) {
    Save({Stage::kExecute, Stage::kFormatResult});
  } else {
    Save({Stage::kFormatResult});
  }
  std::string result = have_run_ ? final_result_.dump() : "";
  executor_.Complete(record_, status, result, std::move(result), image_digest_, started_);
}

void IntentPipeline::Execution::FinishCancelled() {
  // The cancel already committed the status; this only wakes waiters.
  executor_.Complete(record_, store::JobStatus::kCancelled, "", "", "", started_);
}

void IntentPipeline::Execution::Fail(store::JobStatus status, Stage stage, const std::string& code,
                                     const std::string& message, json extra) {
  int64_t now = Now();
  progress_.End(stage, StageStatus::kFailed, message, now);
  for (int s = static_cast<int>(stage) + 1; s < 4; ++s) {
    progress_.End(static_cast<Stage>(s), StageStatus::kSkipped, "", now);
  }
  final_stage_ = stage;
  json error = {{"code", code}, {"stage", StageName(stage)}, {"message", message}};
  error.update(extra);
  progress_.SetError(error);
  Complete(status);
}

void IntentPipeline::Execution::FailLlm(Stage stage, const Status& status) {
  if (status.reason() == "cancelled" || cancelled()) return FinishCancelled();
  if (status.reason() == "token_budget_exhausted") {
    return Fail(store::JobStatus::kFailed, stage, status.reason(), status.message());
  }
  // llm_timeout -> generate_code_timeout: the code says where and what.
  std::string what = status.reason();
  if (what.rfind("llm_", 0) == 0) what = what.substr(4);
  Fail(store::JobStatus::kError, stage, std::string(StageName(stage)) + "_" + what,
       "the model failed: " + status.message());
}

std::optional<AgentProfile> IntentPipeline::Execution::Discover() {
  progress_.Start(Stage::kDiscoverAgent, "looking for a " + req_.language + " agent", Now());
  Save({Stage::kDiscoverAgent});
  const double threshold = config().intents.agent_match_threshold;
  auto match = p_.agents_->BestMatch(req_.intent, req_.language, record_.tenant);
  AgentProfile agent;
  std::string detail;
  bool created = false;
  char score[32];
  snprintf(score, sizeof(score), "%.2f", match ? match->score : 0.0);
  if (match && match->score >= threshold) {
    agent = match->profile;
    detail = "reused " + agent.name + " (match " + score + ")";
  } else {
    auto reply = Ask(AgentWriterMessages(req_.intent, req_.language));
    if (!reply.ok()) {
      FailLlm(Stage::kDiscoverAgent, reply.status());
      return std::nullopt;
    }
    auto profile = ParseGeneratedProfile(reply->content, req_.language);
    if (!profile.ok() && match) {
      // The model wrote something unusable, but a profile of the language
      // exists: a weaker fit beats failing the intent.
      agent = match->profile;
      detail = "the model's new profile was unusable (" + profile.status().message() + "); using " +
               agent.name + " (match " + score + ")";
    } else if (!profile.ok()) {
      FailLlm(Stage::kDiscoverAgent,
              InternalError("the model's agent profile is unusable: " + profile.status().message(),
                            "llm_bad_reply"));
      return std::nullopt;
    } else {
      agent = std::move(*profile);
      agent.tenant = record_.tenant;
      agent.created_at_ms = Now();
      std::set<std::string> have(agent.keywords.begin(), agent.keywords.end());
      for (auto& w : IntentWords(req_.intent)) {
        if (have.insert(w).second) agent.keywords.push_back(w);
      }
      auto name = p_.agents_->Add(agent);
      if (name.ok()) {
        agent.name = *name;
        detail = "created " + agent.name + " (best existing match " + score + ")";
        created = true;
      } else {
        spdlog::warn("intent {}: cannot store agent {}: {}", record_.id, agent.name,
                     name.status().ToString());
        detail = "created " + agent.name +
                 " for this intent only (not stored: " + name.status().message() + ")";
      }
    }
  }
  progress_.SetAgent({{"name", agent.name},
                      {"language", agent.language},
                      {"description", agent.description},
                      {"builtin", agent.builtin},
                      {"created", created}});
  progress_.End(Stage::kDiscoverAgent, StageStatus::kSucceeded, detail, Now());
  Save({Stage::kDiscoverAgent});
  return agent;
}

void IntentPipeline::Execution::Go() {
  std::optional<AgentProfile> agent = Discover();
  if (!agent) return;

  auto preamble = BuildPreamble(req_.language, req_.inputs);
  if (!preamble.ok()) {
    return Fail(store::JobStatus::kError, Stage::kGenerateCode, preamble.status().reason(),
                preamble.status().message());
  }
  const isolation::LanguageSpec* lang = config().FindLanguage(req_.language);
  if (lang == nullptr) {
    return Fail(store::JobStatus::kError, Stage::kGenerateCode, "unknown_language",
                "language " + req_.language + " is no longer configured");
  }
  CodeTask task{req_.intent, req_.language, lang->file, &*preamble, !req_.volume_id.empty()};
  std::vector<ChatMessage> messages = CodeMessages(*agent, task);
  const int max_attempts = std::clamp(config().intents.max_attempts, 1, 3);
  wire::RequestCaps caps = wire::CapsFromConfig(config());
  isolation::RunResult result;
  json last_error;
  std::string last_outcome;
  bool succeeded = false;

  for (int k = 1; k <= max_attempts && !succeeded; ++k) {
    const std::string of = "attempt " + std::to_string(k) + " of " + std::to_string(max_attempts);
    progress_.Start(Stage::kGenerateCode, of, Now());
    Save({Stage::kGenerateCode});
    auto reply = Ask(messages);
    if (!reply.ok()) return FailLlm(Stage::kGenerateCode, reply.status());
    std::string code = ExtractCode(reply->content, req_.language);
    messages.push_back({"assistant", reply->content});
    if (code.empty()) {
      progress_.AddAttempt(
          {{"attempt", k},
           {"code", ""},
           {"result", nullptr},
           {"error", {{"type", "NoCode"}, {"message", "the reply held no program"}}}});
      last_outcome = "the model's reply held no program";
      last_error = {{"type", "NoCode"}, {"message", last_outcome}, {"line", nullptr}};
      progress_.End(Stage::kGenerateCode, StageStatus::kFailed, of + ": " + last_outcome, Now());
      Save({Stage::kGenerateCode});
      FailedAttempt failed;
      failed.no_code = true;
      messages.push_back({"user", FixMessage(failed)});
      continue;
    }
    int lines = static_cast<int>(std::count(code.begin(), code.end(), '\n'));
    progress_.End(Stage::kGenerateCode, StageStatus::kSucceeded,
                  of + ": " + std::to_string(lines) + " lines", Now());
    progress_.Start(Stage::kExecute, of, Now());
    Save({Stage::kGenerateCode, Stage::kExecute});

    int64_t left = config().intents.exec_budget_ms - progress_.exec_ms_used();
    if (left < kMinRunMs) {
      return Fail(store::JobStatus::kFailed, Stage::kExecute, "exec_budget_exhausted",
                  "the execution budget of " + std::to_string(config().intents.exec_budget_ms) +
                      " ms (intents.exec_budget_ms) is used up" +
                      (last_outcome.empty() ? "" : "; the last run " + last_outcome),
                  {{"last_error", last_error}});
    }
    // The attempt is an ordinary job: parsed and bounded as /v1/execute
    // would be, under the intent's tier.
    JoinedProgram program = JoinProgram(req_.language, *preamble, code);
    auto parsed = AttemptRequest(req_, program.text, caps);
    StatusOr<isolation::JobSpec> spec =
        parsed.ok() ? wire::BuildJobSpec(*parsed, config(), record_.id, tier_)
                    : StatusOr<isolation::JobSpec>(parsed.status());
    if (spec.ok() && !spec->volume.id.empty()) {
      auto mount = p_.ctx_.volumes != nullptr
                       ? p_.ctx_.volumes->Resolve(record_.tenant, nullptr, spec->volume.id)
                       : StatusOr<isolation::VolumeMount>(FailedPreconditionError(
                             "persistent volumes are not available", "volumes_unavailable"));
      if (!mount.ok()) spec = mount.status();
      if (mount.ok()) spec->volume = std::move(*mount);
    }
    if (!spec.ok()) {
      return Fail(store::JobStatus::kError, Stage::kExecute, spec.status().reason(),
                  spec.status().message());
    }
    spec->limits.timeout_ms = std::min(spec->limits.timeout_ms, left);
    auto t0 = std::chrono::steady_clock::now();
    result = executor_.RunSpec(*spec, channel_, /*fail_fast=*/false);
    progress_.AddExecMs(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count());
    if (result.status == isolation::RunStatus::kCancelled || cancelled()) return FinishCancelled();

    isolation::RunResult redacted = result;
    redacted.stdout_data = jobs::RedactSecrets(result.stdout_data);
    redacted.stderr_data = jobs::RedactSecrets(result.stderr_data);
    final_result_ = wire::ResultToJson(*spec, redacted, wire::OutputEncoding::kUtf8);
    final_result_["cached"] = false;
    have_run_ = true;
    image_digest_ = result.image_digest;
    isolation::RunResult brief = redacted;
    if (brief.stdout_data.size() > kAttemptOutputBytes) {
      brief.stdout_data.resize(kAttemptOutputBytes);
      brief.stdout_truncated = true;
    }
    if (brief.stderr_data.size() > kAttemptOutputBytes) {
      brief.stderr_data.resize(kAttemptOutputBytes);
      brief.stderr_truncated = true;
    }
    json attempt = {{"attempt", k},
                    {"code", code},
                    {"result", wire::ResultToJson(*spec, brief, wire::OutputEncoding::kUtf8)},
                    {"error", nullptr}};

    if (result.status == isolation::RunStatus::kError) {
      // The engine or the service failed, not the program: no retry helps.
      progress_.AddAttempt(attempt);
      return Fail(store::JobStatus::kError, Stage::kExecute, result.error.reason(),
                  result.error.message());
    }
    succeeded = result.status == isolation::RunStatus::kSucceeded &&
                (!Trim(result.stdout_data).empty() || !result.artifacts.empty());
    if (succeeded) {
      progress_.AddAttempt(attempt);
      progress_.End(Stage::kExecute, StageStatus::kSucceeded,
                    of + ": exit 0 in " + std::to_string(result.metrics.run_ms) + " ms", Now());
      Save({Stage::kExecute});
      break;
    }
    ErrorSummary summary =
        SummarizeError(req_.language, result.stderr_data, lang->file, program.line_offset);
    last_outcome = Outcome(result, *spec);
    last_error = SummaryJson(summary);
    attempt["error"] = last_error;
    progress_.AddAttempt(attempt);
    std::string summary_text = SummaryText(summary);
    progress_.End(Stage::kExecute, StageStatus::kFailed,
                  of + ": " + last_outcome + (summary_text.empty() ? "" : ": " + summary_text),
                  Now());
    Save({Stage::kExecute});
    FailedAttempt failed;
    failed.outcome = last_outcome;
    failed.error = summary;
    failed.stderr_tail = Tail(result.stderr_data, kFeedbackTailBytes);
    failed.stdout_tail = Tail(result.stdout_data, kFeedbackTailBytes / 3);
    messages.push_back({"user", FixMessage(failed)});
  }
  if (!succeeded) {
    std::string message = std::to_string(max_attempts) + " attempt" +
                          (max_attempts == 1 ? "" : "s") + " failed; the last: " + last_outcome;
    if (last_error.is_object()) message += ": " + last_error.value("message", "");
    return Fail(store::JobStatus::kFailed,
                progress_.attempts() > 0 && have_run_ ? Stage::kExecute : Stage::kGenerateCode,
                "attempts_exhausted", message, {{"last_error", last_error}});
  }

  progress_.Start(Stage::kFormatResult, "asking the model for a short answer", Now());
  Save({Stage::kFormatResult});
  std::string raw = Trim(SanitizeUtf8(result.stdout_data));
  auto reply = Ask(FormatMessages(req_.intent, req_.inputs.is_null() ? "" : req_.inputs.dump(),
                                  SanitizeUtf8(result.stdout_data)));
  if (!reply.ok() && (reply.status().reason() == "cancelled" || cancelled())) {
    return FinishCancelled();
  }
  std::string answer = reply.ok() ? Trim(reply->content) : "";
  if (!answer.empty() && answer.size() <= kMaxAnswerBytes) {
    progress_.End(Stage::kFormatResult, StageStatus::kSucceeded, "formatted by the model", Now());
  } else {
    std::string why = !reply.ok() ? reply.status().message()
                      : answer.empty()
                          ? "an empty reply"
                          : "a reply over " + std::to_string(kMaxAnswerBytes) + " bytes";
    answer = raw.size() > kMaxAnswerBytes
                 ? raw.substr(0, CompleteUtf8Prefix(raw.substr(0, kMaxAnswerBytes)))
                 : raw;
    progress_.End(Stage::kFormatResult, StageStatus::kFailed,
                  "the formatter failed (" + why + "); the answer is the raw stdout", Now());
  }
  progress_.SetAnswer(jobs::RedactSecrets(answer));
  Complete(store::JobStatus::kSucceeded);
}

void IntentPipeline::Run(const store::JobRecord& record, jobs::JobChannel& channel,
                         jobs::JobExecutor& executor) {
  auto decoded = jobs::DecodeStoredRequest(record.request_json);
  StatusOr<IntentRequest> request = decoded.ok()
                                        ? IntentRequestFromJson(decoded->first, *ctx_.config)
                                        : StatusOr<IntentRequest>(decoded.status());
  const config::TierConfig* tier = nullptr;
  if (request.ok()) {
    json envelope = json::parse(record.request_json, nullptr, false);
    std::string tier_name = envelope.is_object() ? envelope.value("tier", "") : "";
    if (!tier_name.empty()) {
      tier = ctx_.config->FindTier(tier_name);
      if (tier == nullptr) {
        request = FailedPreconditionError(
            "intent accepted under tier '" + tier_name + "', which is no longer configured",
            "unknown_tier");
      }
    }
  }
  if (!request.ok()) {
    // The config changed under a stored intent.
    IntentProgress progress(record.id, "");
    json error = {{"code", request.status().reason()}, {"message", request.status().message()}};
    progress.SetError(error);
    (void)ctx_.store->UpdateProgress(record.id, progress.ToJson().dump());
    executor.Complete(record, store::JobStatus::kError, "", "", "", jobs::NowMs());
    return;
  }
  Execution(*this, record, channel, executor, std::move(*request), tier).Go();
}

}  // namespace coderunner::intent
