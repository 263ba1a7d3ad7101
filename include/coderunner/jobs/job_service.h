// JobService: the jobs API behind the HTTP routes. An abstract face with
// a static Create, the implementation (JobServiceImpl) out of sight in
// src/jobs/.
#ifndef CODERUNNER_JOBS_JOB_SERVICE_H_
#define CODERUNNER_JOBS_JOB_SERVICE_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "coderunner/common/metrics.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/judge/submission_judge.h"
#include "coderunner/packages/package_installer.h"
#include "coderunner/store/job_store.h"
#include "coderunner/store/webhook_outbox.h"
#include "coderunner/wire/job_submission.h"

// The collaborators a JobService is built on (JobServiceDeps), declared
// here and defined in their own headers: a caller that builds a service
// includes those it passes.
namespace coderunner::engine {
class ContainerClient;
class ImageClient;
}  // namespace coderunner::engine
namespace coderunner::isolation {
class JobRunner;
class WarmPool;
}  // namespace coderunner::isolation
namespace coderunner::volumes {
class VolumeService;
}  // namespace coderunner::volumes

namespace coderunner::jobs {

class IntentRunner;
class JobDispatch;
class JobQueue;
class WebhookSender;

// An accepted job: its record as committed, and for a cache hit the raw
// result at once.
struct Accepted {
  store::JobRecord record;
  std::shared_ptr<JobChannel> channel;  // nullptr when already terminal (cache hit).
};

// What /v1/execute answers: the finished job's result body.
struct ExecuteAnswer {
  std::string job_id;
  store::JobStatus status = store::JobStatus::kQueued;
  // The result JSON: the raw (unredacted) one of the run, or the record's
  // (a cache hit, a job that ended without a run of its own).
  std::string result_json;
};

// What a JobService works with: its own collaborators, and those it hands
// to the parts it owns (JobExecutorDeps, JobJanitorDeps, recovery).
// Non-owning: every pointee outlives the service and is thread-safe. The
// required ones must not be null.
struct JobServiceDeps {
  // Request caps, jobs.* (queue, cache, webhooks, retention), languages,
  // tiers, instance and directories.
  const config::Config* config = nullptr;
  store::JobStore* store = nullptr;  // Every job's record; the result cache.
  JobQueue* queue = nullptr;         // Accepted jobs waiting for a worker.
  JobHub* hub = nullptr;             // Each non-terminal job's channel.
  MetricsRegistry* metrics = nullptr;
  engine::ImageClient* images = nullptr;  // Image digests (cache keys).
  // Runs each job, in a container or as a host process (the executor).
  isolation::JobRunner* runner = nullptr;
  // Orphans and interrupted jobs' containers (janitor, recovery).
  engine::ContainerClient* containers = nullptr;
  // Callback deliveries; nullptr: no webhook is sent. With `outbox`, each
  // delivery a terminal move owes is claimed from the store and sent
  // through it, at least once, by one node at a time, surviving a restart.
  WebhookSender* webhooks = nullptr;
  // Persistent volumes; nullptr: requests naming a volume are refused.
  volumes::VolumeService* volumes = nullptr;
  // Execute mode; nullptr when no LLM is configured (intents end as error).
  IntentRunner* intents = nullptr;
  // Judges requests with "cases" (JobExecutorDeps::judge).
  const judge::SubmissionJudge* judge = nullptr;
  // Installs a job's packages (JobExecutorDeps::packages).
  packages::PackageInstaller* packages = nullptr;
  // The warm pool, whose containers recovery and the janitor leave alone;
  // nullptr when there is none.
  const isolation::WarmPool* pool = nullptr;
  // Where one node and a fleet differ (job_dispatch.h); the service
  // attaches itself to it. nullptr (default): one node, a LocalDispatch of
  // the service's own over `queue`.
  JobDispatch* dispatch = nullptr;
  // The store's webhook outbox (store::StoreParts::outbox: both job
  // stores), on the same database as `store`; nullptr (or no `webhooks`):
  // no webhook is sent.
  store::WebhookOutbox* outbox = nullptr;
};

// Owns the executor, the worker pool and the janitor. Every accepted job is
// committed to the store before Submit returns. Thread-safe.
class JobService {
 public:
  // The service over `deps` (JobServiceImpl, in src/jobs/); not started.
  static std::unique_ptr<JobService> Create(JobServiceDeps deps);
  virtual ~JobService() = default;

  // Recovery phase 1 (store only: queued jobs are enqueued, every
  // non-terminal job gets its channel), then starts the workers. Phase 2
  // (interrupted jobs, needs the engine) runs in the background, retrying
  // while the engine is down; the janitor starts after it. Call before the
  // HTTP server accepts requests. Fails only if the store cannot be read.
  // The phases are the dispatch's (JobDispatch::Recover, RecoverInterrupted).
  virtual Status Start() = 0;
  // True once the workers run.
  virtual bool ready() const = 0;
  // Jobs executing on this node now (what the coderunner_jobs_running
  // gauge shows). Thread-safe.
  virtual int running() const = 0;
  // Graceful shutdown, before Stop: new submissions get Unavailable
  // "shutting_down" (503); queued jobs stay queued in the store and their
  // waiters are woken on status queued; running jobs get up to `grace` to
  // finish, then are stopped and re-queued (JobExecutor::RequeueActive).
  // Returns once no job runs. Every job not finished is queued in the store
  // and runs at the next start. Call from one thread. The dispatch stops
  // taking jobs first, and gets the dropped ones to give back.
  virtual void Drain(std::chrono::milliseconds grace) = 0;
  // Stops taking jobs off the queue, lets running ones finish, stops threads.
  virtual void Stop() = 0;

  // How the edge parses a submission body for this service
  // (wire::ParseJobSubmission): the request caps of the config, and the
  // callback URL check of jobs.webhook_allow_private. Lives as long as the
  // service.
  virtual const wire::SubmissionRules& submission_rules() const = 0;

  // Accepts one job for `tenant` from a parsed submission: builds its job
  // (errors of wire::BuildJobSpec, 400/422), checks its volume, then
  // commits it. Errors: ResourceExhausted "queue_full" (429) when the
  // queue is full, store errors. `tier` (nullable) bounds limits, the
  // tenant's queued jobs and its concurrency (429 "tier_queue_full" naming
  // the tier). A job answered from the result cache (only ever with the
  // same tenant's earlier result) meets the same queue bounds as one that
  // waits.
  virtual StatusOr<Accepted> Submit(const std::string& tenant, wire::JobSubmission submission,
                                    const config::TierConfig* tier = nullptr) = 0;

  // Submit for each entry of a batch, in order; an entry that did not parse
  // is answered with its own error. The batch's cache hits count against
  // the tier's max_queued as if queued.
  virtual std::vector<StatusOr<Accepted>> SubmitBatch(
      const std::string& tenant, std::vector<StatusOr<wire::JobSubmission>> entries,
      const config::TierConfig* tier = nullptr) = 0;

  // Accepts a record built elsewhere (an intent from POST /v1/intents,
  // kind != "job"): same bounds as Submit (tier queue 429, queue_full 429),
  // committed before it returns, then queued for a worker, which hands it
  // to deps.intents. `output_cap` bounds the live /events output per stream.
  virtual StatusOr<Accepted> SubmitRecord(store::JobRecord rec, const config::TierConfig* tier,
                                          int64_t output_cap) = 0;

  // Submit (failing fast if the engine is unreachable), then wait for the
  // result. Errors: those of Submit; Unavailable "engine_unavailable" if
  // the engine could not be reached; Unavailable "shutting_down" if a
  // graceful shutdown re-queued the job before it finished; Unavailable
  // "not_started" before Start.
  virtual StatusOr<ExecuteAnswer> Execute(const std::string& tenant, wire::JobSubmission submission,
                                          const config::TierConfig* tier = nullptr) = 0;

  // The record; NotFound (also for another tenant's job).
  virtual StatusOr<store::JobRecord> Get(const std::string& id, const std::string& tenant) = 0;

  // Waits up to `timeout` for the job to be terminal (woken by its channel,
  // no polling) and returns the record as it then is. The channel is the
  // dispatch's (JobDispatch::Follow).
  virtual StatusOr<store::JobRecord> Wait(const std::string& id, const std::string& tenant,
                                          std::chrono::milliseconds timeout) = 0;

  // Waits up to `timeout` until one of `ids` (with `all`, every one) is
  // terminal, woken by the jobs' channels ending (no polling), and returns
  // the records as they then are, in the order of `ids`. NotFound names
  // the first id that is not the tenant's. Channels as Wait's.
  virtual StatusOr<std::vector<store::JobRecord>> WaitMany(const std::vector<std::string>& ids,
                                                           const std::string& tenant, bool all,
                                                           std::chrono::milliseconds timeout) = 0;

  // Cancels: a queued job never runs; a running one's container is killed.
  // The status becomes cancelled at once. A terminal job is returned as is.
  // The dispatch stops it wherever it is (JobDispatch::Cancelled).
  virtual StatusOr<store::JobRecord> Cancel(const std::string& id, const std::string& tenant) = 0;

  virtual StatusOr<store::ListPage> List(const store::ListFilter& filter) = 0;

  // A new job running the same code and inputs on the same image digest,
  // with replay_of set.
  virtual StatusOr<Accepted> Replay(const std::string& id, const std::string& tenant,
                                    const config::TierConfig* tier = nullptr) = 0;

  // The live channel of a non-terminal job, or nullptr
  // (JobDispatch::Follow).
  virtual std::shared_ptr<JobChannel> Channel(const std::string& id) const = 0;

  // The configuration the service was built with (request caps, limits,
  // jobs.*); lives as long as the service.
  virtual const config::Config& config() const = 0;
  // Whether Execute mode is on (intents have a runner); when off, intents
  // accepted earlier end as error llm_not_configured.
  virtual bool intents_enabled() const = 0;
  // Checks that `tenant` (within `tier`, nullable) may mount volume
  // `volume_id`: FailedPrecondition "volumes_unavailable" when the service
  // has no volumes, else the errors of volumes::VolumeService::Resolve.
  virtual Status CheckVolume(const std::string& tenant, const config::TierConfig* tier,
                             const std::string& volume_id) const = 0;
  // Sets the gauges read at scrape time (queue depth, webhook deliveries)
  // in `metrics`. Thread-safe.
  virtual void UpdateScrapeGauges(MetricsRegistry& metrics) const = 0;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_SERVICE_H_
