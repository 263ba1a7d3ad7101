// JobService: the jobs API behind the HTTP routes.
#ifndef CODERUNNER_JOBS_JOB_SERVICE_H_
#define CODERUNNER_JOBS_JOB_SERVICE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/metrics.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/images.h"
#include "coderunner/jobs/image_digests.h"
#include "coderunner/jobs/job_dispatch.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/job_janitor.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/jobs/tenant_footprint.h"
#include "coderunner/jobs/worker_pool.h"
#include "coderunner/store/job_store.h"
#include "coderunner/volumes/volume_service.h"
#include "coderunner/wire/job_submission.h"

namespace coderunner::jobs {

class WebhookOutboxLoop;

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
  // Callback deliveries; nullptr: no webhook is sent. With a store that
  // keeps a webhook outbox (store::WebhookOutbox: both job stores), each
  // delivery a terminal move owes is claimed from the store and sent
  // through it, at least once, by one node at a time, surviving a restart.
  WebhookSender* webhooks = nullptr;
  // Persistent volumes; nullptr: requests naming a volume are refused.
  volumes::VolumeService* volumes = nullptr;
  // Execute mode; nullptr when no LLM is configured (intents end as error).
  IntentRunner* intents = nullptr;
  // The warm pool, whose containers recovery and the janitor leave alone;
  // nullptr when there is none.
  const isolation::WarmPool* pool = nullptr;
  // Where one node and a fleet differ (job_dispatch.h); the service
  // attaches itself to it. nullptr (default): one node, a LocalDispatch of
  // the service's own over `queue`.
  JobDispatch* dispatch = nullptr;
};

// Owns the executor, the worker pool and the janitor. Every accepted job is
// committed to the store before Submit returns. Thread-safe.
class JobService {
 public:
  explicit JobService(JobServiceDeps deps);
  ~JobService();

  // Recovery phase 1 (store only: queued jobs are enqueued, every
  // non-terminal job gets its channel), then starts the workers. Phase 2
  // (interrupted jobs, needs the engine) runs in the background, retrying
  // while the engine is down; the janitor starts after it. Call before the
  // HTTP server accepts requests. Fails only if the store cannot be read.
  // The phases are the dispatch's (JobDispatch::Recover, RecoverInterrupted).
  Status Start();
  // True once the workers run.
  bool ready() const { return ready_; }
  // Jobs executing on this node now (what the coderunner_jobs_running
  // gauge shows). Thread-safe.
  int running() const { return executor_.running(); }
  // Graceful shutdown, before Stop: new submissions get Unavailable
  // "shutting_down" (503); queued jobs stay queued in the store and their
  // waiters are woken on status queued; running jobs get up to `grace` to
  // finish, then are stopped and re-queued (JobExecutor::RequeueActive).
  // Returns once no job runs. Every job not finished is queued in the store
  // and runs at the next start. Call from one thread. The dispatch stops
  // taking jobs first, and gets the dropped ones to give back.
  void Drain(std::chrono::milliseconds grace);
  // Stops taking jobs off the queue, lets running ones finish, stops threads.
  void Stop();

  // How the edge parses a submission body for this service
  // (wire::ParseJobSubmission): the request caps of the config, and the
  // callback URL check of jobs.webhook_allow_private. Lives as long as the
  // service.
  const wire::SubmissionRules& submission_rules() const { return rules_; }

  // Accepts one job for `tenant` from a parsed submission: builds its job
  // (errors of wire::BuildJobSpec, 400/422), checks its volume, then
  // commits it. Errors: ResourceExhausted "queue_full" (429) when the
  // queue is full, store errors. `tier` (nullable) bounds limits, the
  // tenant's queued jobs and its concurrency (429 "tier_queue_full" naming
  // the tier). A job answered from the result cache (only ever with the
  // same tenant's earlier result) meets the same queue bounds as one that
  // waits.
  StatusOr<Accepted> Submit(const std::string& tenant, wire::JobSubmission submission,
                            const config::TierConfig* tier = nullptr);

  // Submit for each entry of a batch, in order; an entry that did not parse
  // is answered with its own error. The batch's cache hits count against
  // the tier's max_queued as if queued.
  std::vector<StatusOr<Accepted>> SubmitBatch(const std::string& tenant,
                                              std::vector<StatusOr<wire::JobSubmission>> entries,
                                              const config::TierConfig* tier = nullptr);

  // Accepts a record built elsewhere (an intent from POST /v1/intents,
  // kind != "job"): same bounds as Submit (tier queue 429, queue_full 429),
  // committed before it returns, then queued for a worker, which hands it
  // to deps.intents. `output_cap` bounds the live /events output per stream.
  StatusOr<Accepted> SubmitRecord(store::JobRecord rec, const config::TierConfig* tier,
                                  int64_t output_cap);

  // Submit (failing fast if the engine is unreachable), then wait for the
  // result. Errors: those of Submit; Unavailable "engine_unavailable" if
  // the engine could not be reached; Unavailable "shutting_down" if a
  // graceful shutdown re-queued the job before it finished; Unavailable
  // "not_started" before Start.
  StatusOr<ExecuteAnswer> Execute(const std::string& tenant, wire::JobSubmission submission,
                                  const config::TierConfig* tier = nullptr);

  // The record; NotFound (also for another tenant's job).
  StatusOr<store::JobRecord> Get(const std::string& id, const std::string& tenant);

  // Waits up to `timeout` for the job to be terminal (woken by its channel,
  // no polling) and returns the record as it then is. The channel is the
  // dispatch's (JobDispatch::Follow).
  StatusOr<store::JobRecord> Wait(const std::string& id, const std::string& tenant,
                                  std::chrono::milliseconds timeout);

  // Waits up to `timeout` until one of `ids` (with `all`, every one) is
  // terminal, woken by the jobs' channels ending (no polling), and returns
  // the records as they then are, in the order of `ids`. NotFound names
  // the first id that is not the tenant's. Channels as Wait's.
  StatusOr<std::vector<store::JobRecord>> WaitMany(const std::vector<std::string>& ids,
                                                   const std::string& tenant, bool all,
                                                   std::chrono::milliseconds timeout);

  // Cancels: a queued job never runs; a running one's container is killed.
  // The status becomes cancelled at once. A terminal job is returned as is.
  // The dispatch stops it wherever it is (JobDispatch::Cancelled).
  StatusOr<store::JobRecord> Cancel(const std::string& id, const std::string& tenant);

  StatusOr<store::ListPage> List(const store::ListFilter& filter);

  // A new job running the same code and inputs on the same image digest,
  // with replay_of set.
  StatusOr<Accepted> Replay(const std::string& id, const std::string& tenant,
                            const config::TierConfig* tier = nullptr);

  // The live channel of a non-terminal job, or nullptr
  // (JobDispatch::Follow).
  std::shared_ptr<JobChannel> Channel(const std::string& id) const;

  // The configuration the service was built with (request caps, limits,
  // jobs.*); lives as long as the service.
  const config::Config& config() const { return *deps_.config; }
  // Whether Execute mode is on (intents have a runner); when off, intents
  // accepted earlier end as error llm_not_configured.
  bool intents_enabled() const { return deps_.intents != nullptr; }
  // Checks that `tenant` (within `tier`, nullable) may mount volume
  // `volume_id`: FailedPrecondition "volumes_unavailable" when the service
  // has no volumes, else the errors of volumes::VolumeService::Resolve.
  Status CheckVolume(const std::string& tenant, const config::TierConfig* tier,
                     const std::string& volume_id) const;
  // Sets the gauges read at scrape time (queue depth, webhook deliveries)
  // in `metrics`. Thread-safe.
  void UpdateScrapeGauges(MetricsRegistry& metrics) const;

 private:
  // `batch_hits`: jobs of the same batch answered from the cache before
  // this one; they count against the tier's max_queued as if queued.
  // `fail_fast` jobs (a caller waits for them) hand the job as built to
  // the worker through their channel; others are rebuilt from the store
  // when they run, so that a full queue holds no request bodies in memory.
  StatusOr<Accepted> Accept(const std::string& tenant, wire::JobSubmission submission,
                            const std::string& pin_image, const std::string& replay_of,
                            bool fail_fast, const config::TierConfig* tier, size_t batch_hits = 0);
  // Answers `rec` from the cached result `cached_json` if it holds a
  // cacheable status and the job is admitted (the dispatch's Reserve): the
  // record is committed as cached and returned. nullopt (and `rec` untouched) when
  // the entry is not one the cache may give; an admission or store error
  // otherwise.
  std::optional<StatusOr<Accepted>> AnswerFromCache(store::JobRecord& rec,
                                                    const std::string& cached_json,
                                                    const std::string& digest,
                                                    const config::TierConfig* tier,
                                                    size_t batch_hits);
  // SubmitRecord, with `batch_hits` counted as in Accept.
  // `prepared` (nullable) is handed to the worker through the channel.
  StatusOr<Accepted> Enqueue(store::JobRecord rec, const config::TierConfig* tier,
                             int64_t output_cap, size_t batch_hits,
                             std::unique_ptr<RunnableJob> prepared = nullptr);
  // Unavailable shutting_down (counted in coderunner_jobs_rejected_total)
  // while draining. Requires submit_mu_ held.
  Status Draining();
  // 507 disk_full (counted there too) while a directory the jobs write to
  // has less than jobs.disk_reserve_bytes free: room is kept for the jobs
  // already accepted, and every submission meets the same answer.
  Status RoomOnDisk();

  JobServiceDeps deps_;
  wire::SubmissionRules rules_;
  ImageDigests digests_;
  // deps.dispatch, or own_dispatch_ when that is null. Before executor_,
  // which fences and publishes as it says.
  std::unique_ptr<JobDispatch> own_dispatch_;
  JobDispatch* dispatch_;
  // Each tenant's finished jobs within its tier's bounds: after a job ends
  // here (the executor's, a cancel, a cache hit, recovery). Before
  // executor_, which uses it.
  TenantFootprint footprint_;
  JobExecutor executor_;
  WorkerPool pool_;
  JobJanitor janitor_;
  // With webhooks and a store that is a WebhookOutbox, on this node's
  // name (config instance).
  std::unique_ptr<WebhookOutboxLoop> webhook_loop_;
  std::atomic<bool> ready_{false};
  // Held shared by each submission from its draining_ check to its push,
  // and exclusively by Drain to close the queue: no job slips into a closed
  // queue unseen.
  std::shared_mutex submit_mu_;
  bool draining_ = false;  // Guarded by submit_mu_.
  std::mutex start_mu_;
  std::condition_variable start_cv_;
  bool stopping_ = false;
  std::thread starter_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_SERVICE_H_
