#include "coderunner/intent/intent_pipeline.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "coderunner/common/utf8.h"
#include "coderunner/intent/intent_request.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/jobs/redactor.h"
#include "coderunner/store/job_store.h"
#include "intent_execution.h"
#include "intent_progress.h"
#include "prompts.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;

// Longest answer the formatter may give before the raw output is used.
constexpr size_t kMaxAnswerBytes = 4096;

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

void IntentPipeline::Execution::Go() {
  std::optional<AgentProfile> agent = Discover();
  if (!agent) return;
  std::optional<Attempts> attempts = Prepare(*agent);
  if (!attempts) return;
  if (verify_ != VerifyMode::kOff) ShowVerification();
  for (int k = 1; k <= attempts->max; ++k) {
    switch (Attempt(k, *attempts)) {
      case AttemptEnd::kEnded:
        return;
      case AttemptEnd::kSucceeded:
        return FormatResult(attempts->result);
      case AttemptEnd::kRetry:
        break;
    }
    // No model call for a program there is no time left to run.
    if (ExecBudgetUsedUp()) return FailExecBudget(*attempts);
  }
  FailExhausted(*attempts);
}

std::optional<IntentPipeline::Execution::Attempts> IntentPipeline::Execution::Prepare(
    const AgentProfile& agent) {
  auto preamble = BuildPreamble(req_.language, req_.inputs);
  if (!preamble.ok()) {
    Fail(store::JobStatus::kError, Stage::kGenerateCode, preamble.status().reason(),
         preamble.status().message());
    return std::nullopt;
  }
  const isolation::LanguageSpec* lang = config().FindLanguage(req_.language);
  if (lang == nullptr) {
    Fail(store::JobStatus::kError, Stage::kGenerateCode, kUnknownLanguage,
         "language " + req_.language + " is no longer configured");
    return std::nullopt;
  }
  Attempts a;
  a.preamble = std::move(*preamble);
  a.lang = lang;
  CodeTask task{req_.intent, req_.language, lang->file, &a.preamble, !req_.volume_id.empty()};
  a.messages = CodeMessages(agent, task);
  a.max = std::clamp(config().intents.max_attempts, 1, 3);
  a.caps = wire::CapsFromConfig(config());
  return a;
}

void IntentPipeline::Execution::FailExhausted(const Attempts& a) {
  if (checks_failed_) {
    return FailUnverified(
        std::to_string(a.max) + " attempt" + (a.max == 1 ? "" : "s") + " (intents.max_attempts)",
        kAttemptsExhausted);
  }
  std::string message = std::to_string(a.max) + " attempt" + (a.max == 1 ? "" : "s") +
                        " failed; the last: " + a.last_outcome;
  if (a.last_error.is_object()) message += ": " + a.last_error.value("message", "");
  Fail(store::JobStatus::kFailed,
       progress_.attempts() > 0 && have_run_ ? Stage::kExecute : Stage::kGenerateCode,
       kAttemptsExhausted, message, {{"last_error", a.last_error}});
}

void IntentPipeline::Execution::FormatResult(const isolation::RunResult& result) {
  progress_.Start(Stage::kFormatResult, "asking the model for a short answer", Now());
  Save({Stage::kFormatResult});
  std::string raw = Trim(SanitizeUtf8(result.stdout_data));
  auto reply = Ask(FormatMessages(req_.intent, req_.inputs.is_null() ? "" : req_.inputs.dump(),
                                  SanitizeUtf8(result.stdout_data)));
  if (!reply.ok() && (reply.status().reason() == kLlmCancelled || cancelled())) {
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
  if (std::string verified = VerifiedLine(); !verified.empty()) answer += "\n" + verified;
  progress_.SetAnswer(jobs::RedactSecrets(answer));
  Complete(store::JobStatus::kSucceeded);
}

void IntentPipeline::Execution::Save(std::initializer_list<Stage> stages) {
  Status s = p_.store_.UpdateProgress(record_.id, progress_.ToJson().dump());
  if (!s.ok() && s.reason() != store::kReasonJobTerminal) {
    spdlog::warn("intent {}: cannot store progress: {}", record_.id, s.ToString());
  }
  for (Stage stage : stages) channel_.PublishStage(progress_.StageJson(stage).dump());
}

StatusOr<ChatReply> IntentPipeline::Execution::Ask(std::vector<ChatMessage> messages) {
  if (cancelled()) return FailedPreconditionError("the intent was cancelled", kLlmCancelled);
  int64_t left = config().intents.token_budget - progress_.tokens_used();
  if (left <= 0) {
    return ResourceExhaustedError("the token budget of " +
                                      std::to_string(config().intents.token_budget) +
                                      " tokens (intents.token_budget) is used up",
                                  kTokenBudgetExhausted);
  }
  ChatRequest request;
  request.messages = std::move(messages);
  request.max_tokens = static_cast<int>(std::min<int64_t>(config().llm.max_tokens, left));
  auto reply = p_.llm_.Complete(request, &channel_.cancel_token());
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
  if (status.reason() == kLlmCancelled || cancelled()) return FinishCancelled();
  if (status.reason() == kTokenBudgetExhausted) {
    if (checks_failed_) return FailUnverified(status.message(), kTokenBudgetExhausted, stage);
    return Fail(store::JobStatus::kFailed, stage, status.reason(), status.message());
  }
  // llm_timeout -> generate_code_timeout: the code says where and what.
  std::string what = status.reason();
  if (what.rfind("llm_", 0) == 0) what = what.substr(4);
  Fail(store::JobStatus::kError, stage, std::string(StageName(stage)) + "_" + what,
       "the model failed: " + status.message());
}

void IntentPipeline::Run(const store::JobRecord& record, jobs::JobChannel& channel,
                         jobs::JobExecutor& executor) {
  auto decoded = jobs::DecodeStoredRequest(record.request_json);
  StatusOr<IntentRequest> request = decoded.ok() ? IntentRequestFromJson(decoded->first, config_)
                                                 : StatusOr<IntentRequest>(decoded.status());
  const config::TierConfig* tier = nullptr;
  if (request.ok()) {
    json envelope = json::parse(record.request_json, nullptr, false);
    std::string tier_name = envelope.is_object() ? envelope.value("tier", "") : "";
    if (!tier_name.empty()) {
      tier = config_.FindTier(tier_name);
      if (tier == nullptr) {
        request = FailedPreconditionError(
            "intent accepted under tier '" + tier_name + "', which is no longer configured",
            kUnknownTier);
      }
    }
  }
  if (!request.ok()) {
    // The config changed under a stored intent.
    IntentProgress progress(record.id, "");
    json error = {{"code", request.status().reason()}, {"message", request.status().message()}};
    progress.SetError(error);
    (void)store_.UpdateProgress(record.id, progress.ToJson().dump());
    executor.Complete(record, store::JobStatus::kError, "", "", "", jobs::NowMs());
    return;
  }
  Execution(*this, record, channel, executor, std::move(*request), tier).Go();
}

}  // namespace coderunner::intent
