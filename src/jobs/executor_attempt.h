// JobExecutor::Attempt: one job's run as the executor's files share it
// (job_executor.cc prepares and commits it, executor_results.cc runs a
// judged one and serializes its result).
#ifndef CODERUNNER_JOBS_EXECUTOR_ATTEMPT_H_
#define CODERUNNER_JOBS_EXECUTOR_ATTEMPT_H_

#include <optional>

#include "coderunner/isolation/job_spec.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/judge/submission_judge.h"
#include "coderunner/packages/package_installer.h"
#include "coderunner/wire/execute_request.h"

namespace coderunner::jobs {

// One job's run, as prepared from its record: what runs, how its output is
// encoded, and (when it cannot run) the error result it ends with.
struct JobExecutor::Attempt {
  isolation::JobSpec spec;
  wire::OutputEncoding encoding = wire::OutputEncoding::kUtf8;
  bool fail_fast = false;
  // Whether waiters get the raw result: only a /v1/execute caller
  // (fail_fast) reads it, or anyone when the job could not be rebuilt.
  bool keep_raw = true;
  // Preset to status error when the job cannot run; the run's otherwise
  // (a judged job's: its Judgement::result).
  isolation::RunResult result;
  // A judged job: its plan, and once judged, its verdicts.
  std::optional<judge::JudgePlan> judge;
  std::optional<judge::Judgement> judgement;
  // The packages installed for it (spec.python_packages), as its result
  // records them.
  std::optional<packages::InstalledSet> packages;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_EXECUTOR_ATTEMPT_H_
