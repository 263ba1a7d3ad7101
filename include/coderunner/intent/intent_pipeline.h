// IntentPipeline: Execute mode's four stages for one intent.
//
//   discover_agent  the closest code-writer profile for the intent and
//                   language, or a new one the model writes (stored)
//   generate_code   the model writes the program (attempt k of
//                   intents.max_attempts; after a failure, the error goes
//                   back to the model with a request for the minimal fix)
//   execute         preamble (inputs as escaped literals) + program run as
//                   an ordinary job: same sandbox, same limits, nothing
//                   relaxed
//   format_result   the model turns stdout into a short answer; if it
//                   cannot, the answer is the raw stdout
//
// Every stage change is committed to the record (progress_json) and
// published on the job's channel (/events "stage").
#ifndef CODERUNNER_INTENT_INTENT_PIPELINE_H_
#define CODERUNNER_INTENT_INTENT_PIPELINE_H_

#include "coderunner/config/config.h"
#include "coderunner/intent/agent_catalog.h"
#include "coderunner/intent/llm_client.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/store/job_store.h"
#include "coderunner/volumes/volume_service.h"

namespace coderunner::intent {

// Thread-safe: workers run many intents at once through one pipeline.
class IntentPipeline : public jobs::IntentRunner {
 public:
  // Not owned; each must outlive the pipeline and be thread-safe.
  // `config`: the languages, tiers and intents.* settings an intent runs
  // under. `store`: where each stage's progress is committed. `volumes`:
  // resolves a run's persistent volume (nullptr: an intent naming one ends
  // as error volumes_unavailable). `llm`: the model. `agents`: the
  // code-writer profiles.
  IntentPipeline(const config::Config& config, store::JobStore& store,
                 volumes::VolumeService* volumes, LlmClient& llm, AgentCatalog& agents)
      : config_(config), store_(store), volumes_(volumes), llm_(llm), agents_(agents) {}

  // Ends the intent as: succeeded (a run exited 0 with output; the answer
  // is set), failed (every attempt failed, or a budget ran out: error
  // attempts_exhausted / exec_budget_exhausted / token_budget_exhausted with
  // the last error), error (the model or the engine failed: error.code
  // names the stage, e.g. generate_code_timeout), or cancelled.
  void Run(const store::JobRecord& record, jobs::JobChannel& channel,
           jobs::JobExecutor& executor) override;

 private:
  class Execution;
  const config::Config& config_;
  store::JobStore& store_;
  volumes::VolumeService* volumes_;
  LlmClient& llm_;
  AgentCatalog& agents_;
};

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_INTENT_PIPELINE_H_
