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

#include "coderunner/intent/agent_catalog.h"
#include "coderunner/intent/llm_client.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/jobs_context.h"

namespace coderunner::intent {

// Thread-safe: workers run many intents at once through one pipeline.
class IntentPipeline : public jobs::IntentRunner {
 public:
  // `llm` and `agents` are not owned and must outlive the pipeline.
  IntentPipeline(jobs::JobsContext ctx, LlmClient* llm, AgentCatalog* agents)
      : ctx_(ctx), llm_(llm), agents_(agents) {}

  // Ends the intent as: succeeded (a run exited 0 with output; the answer
  // is set), failed (every attempt failed, or a budget ran out: error
  // attempts_exhausted / exec_budget_exhausted / token_budget_exhausted with
  // the last error), error (the model or the engine failed: error.code
  // names the stage, e.g. generate_code_timeout), or cancelled.
  void Run(const store::JobRecord& record, jobs::JobChannel& channel,
           jobs::JobExecutor& executor) override;

 private:
  class Execution;
  jobs::JobsContext ctx_;
  LlmClient* llm_;
  AgentCatalog* agents_;
};

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_INTENT_PIPELINE_H_
