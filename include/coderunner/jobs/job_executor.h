// JobExecutor: takes one accepted job from queued to a terminal state.
#ifndef CODERUNNER_JOBS_JOB_EXECUTOR_H_
#define CODERUNNER_JOBS_JOB_EXECUTOR_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>

#include "coderunner/jobs/jobs_context.h"

namespace coderunner::jobs {

class JobExecutor;

// Runs jobs of kind "intent" (Execute mode; intent::IntentPipeline).
class IntentRunner {
 public:
  virtual ~IntentRunner() = default;
  // Takes the running intent `record` to a terminal state: its runs go
  // through executor.RunSpec and it ends with executor.Complete. Called on
  // a worker thread, once per attempt of the record; must not throw.
  virtual void Run(const store::JobRecord& record, JobChannel& channel, JobExecutor& executor) = 0;
};

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

  // Runs `spec` in the sandbox with `channel`'s output hooks and cancel
  // token, retrying while the engine cannot be reached (up to
  // jobs.engine_retry_s, or not at all when `fail_fast`). Never fails: an
  // engine that stays away is a result with status error.
  isolation::RunResult RunSpec(const isolation::JobSpec& spec, JobChannel& channel, bool fail_fast);

  // Commits the terminal `status` with `stored_json` as the job's result,
  // runs `before_wake` (if any), counts it, wakes waiters with `raw_json`
  // and sends the webhook. `raw_json` is moved into the job's channel
  // after `stored_json` is stored (no copy of a result of several MiB
  // stays with its subscribers; empty when no /v1/execute caller reads
  // it); the two may be the same string, and `stored_json` is not read
  // after `before_wake`, which may free it. Returns
  // false, leaving the status that won, if the job was already terminal (a
  // cancel got there first) or the store failed; also false when
  // RequeueActive stopped it (`status` cancelled): it is queued again.
  bool Complete(const store::JobRecord& record, store::JobStatus status,
                const std::string& stored_json, std::string&& raw_json,
                const std::string& image_digest, int64_t started_ms,
                const std::function<void()>& before_wake = nullptr);

  // Ids of the jobs being executed right now (for the janitor).
  std::set<std::string> Active() const;
  int running() const;

  // Makes engine-retry backoffs end at once (shutdown).
  void Shutdown();

  // Graceful shutdown. WaitIdle: true once no job is executing, false if
  // `deadline` came first. RequeueActive: stops every executing job (as a
  // cancel does) and makes each go back to queued in the store, with its
  // waiters woken on status queued, instead of ending as cancelled; a job
  // a user cancelled or that finished first keeps that status. Returns how
  // many jobs it stopped. Thread-safe.
  bool WaitIdle(std::chrono::steady_clock::time_point deadline);
  int RequeueActive();

 private:
  void Run(const store::JobRecord& record);
  // After RequeueActive: puts the stopped job `record` back in the queued
  // state. False if it is already terminal (a user's cancel won).
  bool Requeue(const store::JobRecord& record);

  JobsContext ctx_;
  mutable std::mutex mu_;
  std::set<std::string> active_;
  std::condition_variable idle_cv_;  // Notified when active_ shrinks.
  std::atomic<bool> shutdown_{false};
  std::atomic<bool> requeue_cancelled_{false};
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_EXECUTOR_H_
