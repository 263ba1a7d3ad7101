// JobExecutor: takes one accepted job from queued to a terminal state.
#ifndef CODERUNNER_JOBS_JOB_EXECUTOR_H_
#define CODERUNNER_JOBS_JOB_EXECUTOR_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "coderunner/common/metrics.h"
#include "coderunner/config/config.h"
#include "coderunner/isolation/job_runner.h"
#include "coderunner/jobs/engine_health.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_clock.h"
#include "coderunner/jobs/tenant_footprint.h"
#include "coderunner/jobs/webhook_sender.h"
#include "coderunner/judge/submission_judge.h"
#include "coderunner/packages/package_installer.h"
#include "coderunner/store/job_notices.h"
#include "coderunner/store/job_store.h"
#include "coderunner/volumes/volume_service.h"

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

// What a JobExecutor works with. Non-owning: every pointee outlives the
// executor and is thread-safe. The required ones must not be null.
struct JobExecutorDeps {
  // jobs.engine_retry_s, jobs.cache_ttl_s, and the languages and limits a
  // stored job is rebuilt with.
  const config::Config* config = nullptr;
  store::JobStore* store = nullptr;  // Records and the result cache.
  JobHub* hub = nullptr;             // Each job's channel.
  // Runs each job: in a container, or as a host process (native).
  isolation::JobRunner* runner = nullptr;
  MetricsRegistry* metrics = nullptr;  // DeclareJobMetrics'd.
  // Called after a job with a callback URL became terminal here (the
  // store wrote the webhook it owes in that transition: WebhookOutbox), so
  // that it is sent now. nullptr: the webhook loop finds it on its timer.
  std::function<void()> webhook_owed = nullptr;
  // Persistent volumes; nullptr: a job naming a volume ends as error
  // volumes_unavailable.
  volumes::VolumeService* volumes = nullptr;
  // Execute mode; nullptr: an intent ends as error llm_not_configured.
  IntentRunner* intents = nullptr;
  // Judges requests with "cases"; nullptr: such a job ends as error
  // judge_unavailable.
  const judge::SubmissionJudge* judge = nullptr;
  // Installs the packages a job asks for, before it runs; nullptr: such a
  // job ends as error packages_unavailable.
  packages::PackageInstaller* packages = nullptr;
  // Fleet mode: this node's name (config `instance`). A job it executes
  // was claimed by it (already running, owned by `node`), and every
  // Transition it makes is fenced by `node` (a lost lease refuses it).
  // "" (default): the single-node path, no claim and no fence.
  std::string node = "";
  // Fleet mode: told of each status change the executor makes (kChanged,
  // and kQueued for a requeue). nullptr (default): nothing is told.
  store::JobNotices* notices = nullptr;
  // Keeps each tenant's finished jobs within its tier's bounds, after each
  // job this executor ends and before its waiters wake. nullptr (default):
  // only retention by age (the janitor's) applies.
  const TenantFootprint* footprint = nullptr;
};

// Per job: mark running, rebuild the job from its stored request, run it
// (retrying while the engine is unreachable, up to jobs.engine_retry_s),
// commit the result with stdout/stderr redacted, fill the cache, update
// metrics, wake waiters with the raw result and send the webhook. A cancel
// that lands first wins: the executor never overwrites a terminal status.
// Thread-safe: call Execute from any number of workers.
class JobExecutor {
 public:
  explicit JobExecutor(JobExecutorDeps deps) : deps_(deps) {}

  // Runs job `id`: the record its channel was handed at acceptance
  // (JobChannel::SetAccepted; single-node path), else the one the store
  // holds. Failures of ours end the job as error. A store that
  // cannot take the result is offered it again until it does (StoreResult);
  // only a shutdown meanwhile leaves the job non-terminal (recovery handles
  // it at the next start). A cancel that landed while it was queued stands
  // either way (MarkRunning's transition refuses a terminal job).
  // Fleet mode: runs it only while it is running and owned by deps.node (a
  // job whose lease was lost while it waited here is left alone).
  void Execute(const std::string& id);

  // Runs `spec` in the sandbox with `channel`'s output hooks and cancel
  // token, retrying while the engine cannot be reached (up to
  // jobs.engine_retry_s, or not at all when `fail_fast`). Never fails: an
  // engine that stays away is a result with status error.
  isolation::RunResult RunSpec(const isolation::JobSpec& spec, JobChannel& channel, bool fail_fast);

  // Commits the terminal `status` with `stored_json` as the job's result
  // and the bytes its kept artifacts take on the host (KeptArtifactBytes),
  // keeps its tenant within its tier's bounds (deps.footprint), runs
  // `before_wake` (if any), counts it, wakes waiters with `raw_json` and
  // sends the webhook. `raw_json` is moved into the job's channel
  // after `stored_json` is stored (no copy of a result of several MiB
  // stays with its subscribers; empty when no /v1/execute caller reads
  // it); the two may be the same string, and `stored_json` is not read
  // after `before_wake`, which may free it. Returns
  // false, leaving the status that won, if the job was already terminal (a
  // cancel got there first: the run's artifacts, which that status does
  // not list, are removed) or the store failed; also false when
  // RequeueActive stopped it (`status` cancelled): it is queued again.
  // Fleet mode: also false when the lease was lost (another node owns the
  // job, or none): the result is dropped (no cache, no webhook) and the
  // waiters are woken with the status the store holds.
  bool Complete(const store::JobRecord& record, store::JobStatus status,
                const std::string& stored_json, std::string&& raw_json,
                const std::string& image_digest, int64_t started_ms,
                const std::function<void()>& before_wake = nullptr);

  // Whether the last runs reached the engine (RunSpec tells it each try).
  const EngineHealth& engine_health() const { return engine_health_; }

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
  struct Attempt;  // One job's run as prepared from its record (executor_attempt.h).

  // The record of job `id` as Execute describes.
  StatusOr<store::JobRecord> Load(const std::string& id);
  // Runs the queued `record`: MarkRunning, then RunIntent for an intent,
  // else Prepare, RunSpec and Commit.
  void Run(const store::JobRecord& record);
  // Moves `record` to running at `started` (ms since the epoch) and
  // returns its channel; nullptr when it must not run (a cancel won, or the
  // store failed: its waiters are woken with the status that stands).
  std::shared_ptr<JobChannel> MarkRunning(const store::JobRecord& record, int64_t started);
  // Judges `attempt` (its plan set) with deps.judge, each case through
  // RunSpec on `channel`.
  void RunJudged(Attempt& attempt, JobChannel& channel);
  // Hands the intent `record` to deps.intents; without one it ends as error
  // llm_not_configured.
  void RunIntent(const store::JobRecord& record, JobChannel& channel, int64_t started);
  // The job as built at acceptance (taken from `channel`) or rebuilt from
  // the stored request, its volume resolved again; an Attempt whose result
  // is already an error when it cannot run.
  Attempt Prepare(const store::JobRecord& record, JobChannel& channel);
  // Installs the packages `attempt.spec` asks for (deps.packages) under the
  // policy of the tier its request was accepted under, and links the job
  // to their layer; the install's error otherwise.
  Status InstallPackages(const store::JobRecord& record, Attempt& attempt);
  // Serializes `attempt`'s result into `raw_text` and, if redacting its
  // output changed anything, the redacted one into `stored_text` (returns
  // true then). Frees the result's output.
  static bool Serialize(Attempt& attempt, std::string* raw_text, std::string* stored_text);
  // Commits `attempt`'s result: stored redacted, cached when it may be,
  // the raw one to the waiters that read it (Complete).
  void Commit(const store::JobRecord& record, JobChannel& channel, Attempt& attempt,
              int64_t started);
  // The store's Transition of job `id` to its terminal `status`, offered
  // again with backoff while the store cannot take it now (a full disk, a
  // store that is down) until it does, or until Shutdown() or the end of a
  // shutdown's grace (RequeueActive): a job is never left running, to be
  // run again by recovery, while its node goes on, and a store that never
  // takes it cannot hold a shutdown forever.
  Status StoreResult(const std::string& id, store::JobStatus status, int64_t finished,
                     const std::string& stored_json, const std::string& image_digest,
                     int64_t artifact_bytes);
  // After RequeueActive: puts the stopped job `record` back in the queued
  // state. False if it is already terminal (a user's cancel won).
  bool Requeue(const store::JobRecord& record);
  // Tells the fleet (deps.notices, if any) of a notice of `kind` for `id`.
  void Publish(store::JobNotice::Kind kind, const std::string& id) const;
  // Whether `record`, as read before it runs, may run here: always on the
  // single-node path; in fleet mode only while running and owned by
  // deps.node.
  bool OwnedHere(const store::JobRecord& record) const;
  // Fleet mode, as attempt `record` of a job starts here: a token found
  // cancelled was cancelled for an earlier attempt of the job on this node
  // (its lease was lost: ClaimLoop::Lost) when the store, read again, still
  // has this attempt running here, for a cancel is stored before any token
  // is cancelled for it. Such a token is renewed.
  void RenewStaleCancel(const store::JobRecord& record);

  JobExecutorDeps deps_;
  mutable std::mutex mu_;
  std::set<std::string> active_;
  std::condition_variable idle_cv_;  // Notified when active_ shrinks.
  EngineHealth engine_health_;
  std::atomic<bool> shutdown_{false};
  std::condition_variable shutdown_cv_;  // With mu_: Shutdown() was called.
  std::atomic<bool> requeue_cancelled_{false};
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_EXECUTOR_H_
