// IntentProgress: what an intent's record shows while its pipeline runs:
// the four stages, every attempt, the agent, the answer, the error and the
// budgets used.
#ifndef CODERUNNER_INTENT_INTENT_PROGRESS_H_
#define CODERUNNER_INTENT_INTENT_PROGRESS_H_

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "coderunner/intent/llm_client.h"

namespace coderunner::intent {

enum class Stage { kDiscoverAgent = 0, kGenerateCode, kExecute, kFormatResult };
enum class StageStatus { kPending, kRunning, kSucceeded, kFailed, kSkipped };

// "discover_agent", "generate_code", "execute", "format_result".
const char* StageName(Stage stage);
// "pending", "running", "succeeded", "failed", "skipped".
const char* StageStatusName(StageStatus status);

// Plain data behind the record's progress JSON. Not thread-safe: one
// pipeline run owns it.
class IntentProgress {
 public:
  // `intent` and `language_source` as accepted.
  IntentProgress(std::string intent, std::string language_source);

  // Moves `stage` to running (keeping its first started_at) with `detail`.
  void Start(Stage stage, std::string detail, int64_t now_ms);
  // Ends `stage` with `status` and `detail`.
  void End(Stage stage, StageStatus status, std::string detail, int64_t now_ms);

  void SetAgent(nlohmann::json agent) { agent_ = std::move(agent); }
  // Appends one attempt: {"attempt","code","result","error"?}.
  void AddAttempt(nlohmann::json attempt) { attempts_.push_back(std::move(attempt)); }
  void SetAnswer(std::string answer) { answer_ = std::move(answer); }
  // {"code","stage","message",...} of a failed intent.
  void SetError(nlohmann::json error) { error_ = std::move(error); }
  // The verify step's state (intent_verify.cc): {"mode","verified",
  // "summary","checks","revisions"}; null when verify is off. Shown in the
  // record as "verification" and, within the execute stage, as its
  // "verify".
  void SetVerification(nlohmann::json verification) { verification_ = std::move(verification); }

  // Counts one model call against the token budget.
  void AddUsage(const ChatReply& reply);
  void AddExecMs(int64_t ms) { exec_ms_ += ms; }
  int64_t tokens_used() const { return prompt_tokens_ + completion_tokens_; }
  int64_t exec_ms_used() const { return exec_ms_; }
  int attempts() const { return static_cast<int>(attempts_.size()); }

  // The stage's JSON object {"name","status","started_at","finished_at","detail"}.
  nlohmann::json StageJson(Stage stage) const;
  // The whole progress object (store::JobRecord::progress_json).
  nlohmann::json ToJson() const;

 private:
  struct StageState {
    StageStatus status = StageStatus::kPending;
    int64_t started_ms = 0;
    int64_t finished_ms = 0;
    std::string detail;
  };
  std::string intent_;
  std::string language_source_;
  std::array<StageState, 4> stages_;
  nlohmann::json agent_ = nullptr;
  nlohmann::json attempts_ = nlohmann::json::array();
  nlohmann::json answer_ = nullptr;
  nlohmann::json error_ = nullptr;
  nlohmann::json verification_ = nullptr;
  int64_t prompt_tokens_ = 0;
  int64_t completion_tokens_ = 0;
  int llm_calls_ = 0;
  int64_t exec_ms_ = 0;
};

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_INTENT_PROGRESS_H_
