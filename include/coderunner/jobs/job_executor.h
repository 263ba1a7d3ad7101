// JobExecutor: takes one accepted job from queued to a terminal state.
#ifndef CODERUNNER_JOBS_JOB_EXECUTOR_H_
#define CODERUNNER_JOBS_JOB_EXECUTOR_H_

#include <atomic>
#include <mutex>
#include <set>
#include <string>

#include "coderunner/jobs/jobs_context.h"

namespace coderunner::jobs {

// Per job: mark running, rebuild the job from its stored request, run it
// (retrying while the engine is unreachable, up to jobs.engine_retry_s),
// commit the result with stdout/stderr redacted, fill the cache, update
// metrics, wake waiters with the raw result and send the webhook. A cancel
// that lands first wins: the executor never overwrites a terminal status.
// Thread-safe: call Execute from any number of workers.
class JobExecutor {
 public:
  explicit JobExecutor(JobsContext ctx) : ctx_(ctx) {}

  // Runs job `id`. Failures of ours end the job as error; only a store that
  // cannot be written leaves it non-terminal (recovery handles it later).
  void Execute(const std::string& id);

  // Ids of the jobs being executed right now (for the janitor).
  std::set<std::string> Active() const;
  int running() const;

  // Makes engine-retry backoffs end at once (shutdown).
  void Shutdown();

 private:
  void Run(const JobRecord& record);

  JobsContext ctx_;
  mutable std::mutex mu_;
  std::set<std::string> active_;
  std::atomic<bool> shutdown_{false};
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_EXECUTOR_H_
