#include "intent_progress.h"

#include "coderunner/wire/job_json.h"

namespace coderunner::intent {

const char* StageName(Stage stage) {
  switch (stage) {
    case Stage::kDiscoverAgent:
      return "discover_agent";
    case Stage::kGenerateCode:
      return "generate_code";
    case Stage::kExecute:
      return "execute";
    case Stage::kFormatResult:
      return "format_result";
  }
  return "unknown";
}

const char* StageStatusName(StageStatus status) {
  switch (status) {
    case StageStatus::kPending:
      return "pending";
    case StageStatus::kRunning:
      return "running";
    case StageStatus::kSucceeded:
      return "succeeded";
    case StageStatus::kFailed:
      return "failed";
    case StageStatus::kSkipped:
      return "skipped";
  }
  return "unknown";
}

IntentProgress::IntentProgress(std::string intent, std::string language_source)
    : intent_(std::move(intent)), language_source_(std::move(language_source)) {}

void IntentProgress::Start(Stage stage, std::string detail, int64_t now_ms) {
  StageState& s = stages_[static_cast<int>(stage)];
  s.status = StageStatus::kRunning;
  // A retried stage keeps its first start: the record shows the stage's
  // whole span across attempts.
  if (s.started_ms == 0) s.started_ms = now_ms;
  s.finished_ms = 0;
  s.detail = std::move(detail);
}

void IntentProgress::End(Stage stage, StageStatus status, std::string detail, int64_t now_ms) {
  StageState& s = stages_[static_cast<int>(stage)];
  s.status = status;
  if (s.started_ms == 0 && status != StageStatus::kSkipped) s.started_ms = now_ms;
  s.finished_ms = now_ms;
  s.detail = std::move(detail);
}

void IntentProgress::AddUsage(const ChatReply& reply) {
  prompt_tokens_ += reply.prompt_tokens;
  completion_tokens_ += reply.completion_tokens;
  ++llm_calls_;
}

nlohmann::json IntentProgress::StageJson(Stage stage) const {
  const StageState& s = stages_[static_cast<int>(stage)];
  nlohmann::json out = {{"name", StageName(stage)},
                        {"status", StageStatusName(s.status)},
                        {"started_at", wire::Rfc3339(s.started_ms)},
                        {"finished_at", wire::Rfc3339(s.finished_ms)},
                        {"detail", s.detail}};
  if (stage == Stage::kExecute && !verification_.is_null()) out["verify"] = verification_;
  return out;
}

nlohmann::json IntentProgress::ToJson() const {
  nlohmann::json stages = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) stages.push_back(StageJson(static_cast<Stage>(i)));
  return {{"intent", intent_},
          {"language_source", language_source_},
          {"agent", agent_},
          {"stages", stages},
          {"attempts", attempts_},
          {"answer", answer_},
          {"error", error_},
          {"verification", verification_},
          {"usage",
           {{"prompt_tokens", prompt_tokens_},
            {"completion_tokens", completion_tokens_},
            {"llm_calls", llm_calls_},
            {"exec_ms", exec_ms_}}}};
}

}  // namespace coderunner::intent
