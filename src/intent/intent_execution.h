// IntentPipeline::Execution: one run of the pipeline for one intent, its
// stages as steps. intent_pipeline.cc holds the run (Go), its progress and
// its ends; intent_discover.cc the discover_agent stage; intent_attempt.cc
// one attempt (generate_code + execute) and the repair message.
#ifndef CODERUNNER_INTENT_INTENT_EXECUTION_H_
#define CODERUNNER_INTENT_INTENT_EXECUTION_H_

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/intent/agent_catalog.h"
#include "coderunner/intent/intent_pipeline.h"
#include "coderunner/intent/intent_request.h"
#include "coderunner/intent/llm_client.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/wire/execute_request.h"
#include "intent_progress.h"
#include "preamble.h"
#include "verify_checks.h"

namespace coderunner::intent {

// Reasons (error.code) the pipeline ends an intent with, beyond those of
// the calls it makes (llm_client.h names the model's).
inline constexpr const char kTokenBudgetExhausted[] = "token_budget_exhausted";
inline constexpr const char kExecBudgetExhausted[] = "exec_budget_exhausted";
inline constexpr const char kAttemptsExhausted[] = "attempts_exhausted";
inline constexpr const char kUnknownLanguage[] = "unknown_language";
inline constexpr const char kVolumesUnavailable[] = "volumes_unavailable";
inline constexpr const char kUnknownTier[] = "unknown_tier";
// The verify step's checks never all passed within the intent's budgets.
inline constexpr const char kUnverified[] = "unverified";

// Owns its progress; not thread-safe (one worker runs one Execution).
class IntentPipeline::Execution {
 public:
  // `record`, `channel` and `executor` are not owned and must outlive Go;
  // `tier` (nullable) bounds every run.
  Execution(IntentPipeline& p, const store::JobRecord& record, jobs::JobChannel& channel,
            jobs::JobExecutor& executor, IntentRequest request, const config::TierConfig* tier)
      : p_(p),
        record_(record),
        channel_(channel),
        executor_(executor),
        req_(std::move(request)),
        tier_(tier),
        started_(Now()),
        progress_(req_.intent, req_.language_source),
        verify_(EffectiveVerifyMode(p.config_, tier, req_)) {}

  // Runs the stages and ends the intent (see IntentPipeline::Run). Call
  // once.
  void Go();

 private:
  // What the attempts share: the program's preamble and language, the
  // conversation with the model so far, and the last run and failure.
  struct Attempts {
    Preamble preamble;
    const isolation::LanguageSpec* lang = nullptr;  // Not owned (the config's).
    std::vector<ChatMessage> messages;
    int max = 1;  // intents.max_attempts, clamped to 1..3.
    wire::RequestCaps caps;
    isolation::RunResult result;  // The last run's (raw, unredacted).
    nlohmann::json last_error;    // The last failure's error summary, or null.
    std::string last_outcome;     // The last failure in words; "" before one.
    // The verify step (verify_ not off): the model's code and checks as
    // they last ran.
    std::string code;
    std::string checks;
  };
  // How one attempt ended: retry, go on to format_result, or the intent
  // was ended (failed, error or cancelled).
  enum class AttemptEnd { kRetry, kSucceeded, kEnded };

  const config::Config& config() const { return p_.config_; }
  bool cancelled() const { return channel_.cancel_token().cancelled(); }
  static int64_t Now() { return jobs::NowMs(); }

  // Commits the progress and announces `stages` (those that changed) on
  // /events.
  void Save(std::initializer_list<Stage> stages);
  // One model call within the token budget.
  StatusOr<ChatReply> Ask(std::vector<ChatMessage> messages);
  // Stage 1; nullopt after the intent was ended.
  std::optional<AgentProfile> Discover();
  // The preamble, language and first messages for `agent`; nullopt after
  // the intent was ended.
  std::optional<Attempts> Prepare(const AgentProfile& agent);
  // Attempt `k` of a.max: generate_code, then execute.
  AttemptEnd Attempt(int k, Attempts& a);
  // The reply of attempt `k` held no program: recorded, and the model is
  // asked again.
  void RecordNoCode(int k, const std::string& of, Attempts& a);
  // What is left of the intent's execution budget (IntentExecBudgetMs of
  // its tier), in ms; below a run worth starting it is used up.
  int64_t ExecMsLeft() const;
  bool ExecBudgetUsedUp() const;
  // Ends the intent with exec_budget_exhausted: as timeout when the last
  // run was stopped at its time limit, else as failed.
  void FailExecBudget(const Attempts& a);
  // Runs `program` within the execution budget (a.result), with its checks
  // when the verify step is on (`report`: what they said; a.result's
  // stdout is then the program's alone); the job it ran, or nullopt after
  // the intent was ended.
  std::optional<isolation::JobSpec> RunAttempt(const JoinedProgram& program, Attempts& a,
                                               std::optional<ChecksReport>* report);
  // `program` as a job, parsed and bounded as /v1/execute would, under
  // the intent's tier, its volume resolved.
  StatusOr<isolation::JobSpec> AttemptSpec(const std::string& program,
                                           const wire::RequestCaps& caps);
  // Keeps the run `result` of `spec` as the intent's result so far; the
  // attempt's record {"attempt","code","result","error": null}.
  nlohmann::json RecordRun(int k, const std::string& code, const isolation::JobSpec& spec,
                           const isolation::RunResult& result);
  // The run of `attempt` failed: recorded, and the error goes back to the
  // model with a request for the minimal fix.
  void AskForRepair(const std::string& of, nlohmann::json attempt, const JoinedProgram& program,
                    const isolation::JobSpec& spec, Attempts& a);
  // Every attempt failed: ends the intent as failed.
  void FailExhausted(const Attempts& a);
  // Stage 4 over the succeeded run `result`; completes the intent.
  void FormatResult(const isolation::RunResult& result);

  // The verify step (intent_verify.cc).
  // The mode of an intent: its request's, else its tier's, else the
  // config's.
  static VerifyMode EffectiveVerifyMode(const config::Config& config,
                                        const config::TierConfig* tier, const IntentRequest& req);
  // The program of attempt k's reply: after failed checks, the reply may
  // correct the checks instead (recorded as a revision); "" if none.
  std::string ProgramOf(int k, const std::string& reply, Attempts& a);
  // Asks the model for checks of a.code (a.checks); false after the
  // intent was ended.
  bool WriteChecks(Attempts& a);
  // Makes `spec` a verify run: the checks beside the program, the driver
  // as its command, `marker` set to the run's own. Its cache key ("" =
  // not cacheable: caching off, a volume, egress).
  std::string AddChecks(const Attempts& a, isolation::JobSpec& spec, std::string* marker) const;
  // A cached verify run of `key` (a.result and its report), if any.
  std::optional<ChecksReport> CachedVerifyRun(const std::string& key, Attempts& a);
  void CacheVerifyRun(const std::string& key, const Attempts& a, const ChecksReport& report);
  // After a run that exited 0 with output: reads its checks (and, in full
  // mode, asks the model's judgement). kSucceeded when all passed; kRetry
  // (with the failing checks sent back) or kEnded otherwise.
  AttemptEnd Verify(const std::string& of, nlohmann::json attempt, ChecksReport report,
                    Attempts& a);
  // Full mode: the model's judgement of whether the output answers the
  // task as asked; "" when it does, the problem otherwise; nullopt after
  // the intent was ended.
  std::optional<std::string> Judge(const std::string& program_stdout);
  // The checks failed: recorded, and they go back to the model.
  AttemptEnd VerifyFailed(const std::string& of, nlohmann::json attempt, const ChecksReport& report,
                          const std::string& judge_problem, Attempts& a);
  // Ends the intent as unverified (failed) in `stage` for `why` (the
  // budget that ran out), with the checks that failed last.
  void FailUnverified(const std::string& why, const std::string& budget_code,
                      Stage stage = Stage::kExecute);
  // The answer's closing line: what was verified ("" when verify is off).
  std::string VerifiedLine() const;
  // Commits the verify step's state to the progress (SetVerification).
  void ShowVerification();
  // A model call failed in `stage`: ends the intent.
  void FailLlm(Stage stage, const Status& status);
  // Ends the intent as `status` with error {code, stage, message, ...extra}.
  void Fail(store::JobStatus status, Stage stage, const std::string& code,
            const std::string& message, nlohmann::json extra = nlohmann::json::object());
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
  nlohmann::json final_result_;  // The last run's result (redacted), once there was a run.
  Stage final_stage_ = Stage::kFormatResult;  // Where the intent ended.
  std::string image_digest_;
  VerifyMode verify_;
  // The verify step's record: the last run's checks, every revision of
  // the checks the model made, and whether the last run's checks all
  // passed (null before any ran).
  std::vector<CheckResult> last_checks_;
  nlohmann::json revisions_ = nlohmann::json::array();
  nlohmann::json verified_ = nullptr;
  // The last run's checks failed (the next reply may correct the checks
  // instead of the program; running out of budget now is "unverified").
  bool checks_failed_ = false;
};

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_INTENT_EXECUTION_H_
