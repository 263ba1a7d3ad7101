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
#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/job_janitor.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/jobs/tenant_footprint.h"
#include "coderunner/jobs/worker_pool.h"
#include "coderunner/store/job_notices.h"
#include "coderunner/store/job_store.h"
#include "coderunner/store/queue_bounds.h"
#include "coderunner/store/webhook_outbox.h"
#include "coderunner/volumes/volume_service.h"
#include "coderunner/wire/job_submission.h"

namespace coderunner::jobs {

class ClaimLoop;
class OutputRelay;
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
  // Callback deliveries; nullptr: no webhook is sent. With `outbox`, each
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
  // Fleet mode: the store is the queue, shared by the nodes of a fleet,
  // each named by its config `instance`. Set from store.kind == "postgres"
  // (tests set it over SQLite). false (default): the single-node path.
  bool fleet = false;
  // Fleet mode: wake-ups to the other nodes (queued, changed, cancel);
  // nullptr (default): none are sent (the nodes still claim on their
  // lease_ms / 3 timer).
  store::JobNotices* notices = nullptr;
  // The store's bounded insert (store::StoreParts::bounded, PostgreSQL):
  // in fleet mode, admission counts the tiers' max_queued and
  // jobs.max_queued over every node's jobs in the store, with the insert.
  // Unused outside fleet mode; nullptr: admission stays local (this node's
  // queue bounds it).
  store::BoundedQueue* bounded = nullptr;
  // The store's webhook outbox (store::StoreParts::outbox: both job
  // stores), on the same database as `store`; nullptr (or no `webhooks`):
  // no webhook is sent.
  store::WebhookOutbox* outbox = nullptr;
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
  // Fleet mode: nothing is enqueued here (the claim loop claims queued
  // jobs for the free workers); this node's own running jobs (a restart)
  // are requeued once the orphan sweep removed their containers, or end as
  // error interrupted past store.max_attempts.
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
  // and runs at the next start. Call from one thread. Fleet mode: claims
  // stop first; claimed and running jobs go back to queued (fenced by this
  // node) and the fleet is told, so other nodes take them at once.
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
  // no polling) and returns the record as it then is. Fleet mode: a job
  // submitted on another node gets a channel here, finished by notices.
  StatusOr<store::JobRecord> Wait(const std::string& id, const std::string& tenant,
                                  std::chrono::milliseconds timeout);

  // Waits up to `timeout` until one of `ids` (with `all`, every one) is
  // terminal, woken by the jobs' channels ending (no polling), and returns
  // the records as they then are, in the order of `ids`. NotFound names
  // the first id that is not the tenant's. Fleet mode: channels here for
  // jobs of other nodes, as Wait opens.
  StatusOr<std::vector<store::JobRecord>> WaitMany(const std::vector<std::string>& ids,
                                                   const std::string& tenant, bool all,
                                                   std::chrono::milliseconds timeout);

  // Cancels: a queued job never runs; a running one's container is killed.
  // The status becomes cancelled at once. A terminal job is returned as is.
  // Fleet mode: a job running on another node is stopped there (kCancel).
  StatusOr<store::JobRecord> Cancel(const std::string& id, const std::string& tenant);

  StatusOr<store::ListPage> List(const store::ListFilter& filter);

  // A new job running the same code and inputs on the same image digest,
  // with replay_of set.
  StatusOr<Accepted> Replay(const std::string& id, const std::string& tenant,
                            const config::TierConfig* tier = nullptr);

  // The live channel of a non-terminal job, or nullptr. Fleet mode: a
  // non-terminal job with no channel here (submitted on another node) gets
  // one, kept up to date by notices.
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
  // Fleet mode: what the node's JobNotices subscriber calls for each
  // notice (on its thread; never blocks for long). kQueued: claim now.
  // kCancel: a job running here stops as a user cancel does. kChanged: a
  // job waited on here and not running here is re-read; terminal, its
  // waiters get the record's status and result; running, they are told
  // once. kWatch: a job running here sends its live output to the fleet.
  // kOutput: live output of a job followed here and running elsewhere goes
  // into its channel. Off fleet mode, nothing. Thread-safe.
  void OnNotice(const store::JobNotice& notice);
  // Fleet mode: notices may have been lost; every job waited on here and
  // not running here is re-read as for kChanged, and the node claims now.
  // Thread-safe.
  void OnResync();

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
  // cacheable status and the job is admitted (CheckAdmission): the record is
  // committed as cached and returned. nullopt (and `rec` untouched) when
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
  // The bounds every accepted job meets, a cache hit included: not while
  // draining (503 shutting_down), the tier's max_queued with `batch_hits`
  // counted (429 tier_queue_full), room in the queue (429 queue_full). On
  // success one queue slot is reserved (the caller pushes or releases it).
  // Requires submit_mu_ held shared.
  Status CheckAdmission(const std::string& tenant, const config::TierConfig* tier,
                        size_t batch_hits);
  // CheckAdmission's parts: Unavailable shutting_down while draining; the
  // 429s of a full tier queue and a full queue (of `capacity` jobs), each
  // counted in coderunner_jobs_rejected_total. Draining requires submit_mu_.
  Status Draining();
  // 507 disk_full (counted there too) while a directory the jobs write to
  // has less than jobs.disk_reserve_bytes free: room is kept for the jobs
  // already accepted, and every submission meets the same answer.
  Status RoomOnDisk();
  Status TierQueueFull(const config::TierConfig& tier);
  Status QueueFull(size_t capacity);
  // True when admission is fleet-wide: fleet mode on a store that is a
  // store::BoundedQueue. The local queue then reserves nothing.
  bool FleetBounds() const { return bounded_ != nullptr; }
  // Fleet mode's admission and insert of `rec` (queued, or a cache hit) in
  // one: the tier's max_queued with `batch_hits` counted and jobs.max_queued
  // over every node's jobs, counted in the store
  // (store::BoundedQueue::InsertWithin); refusals as CheckAdmission's, other
  // errors as the store's Insert. Requires FleetBounds().
  Status InsertInFleet(const store::JobRecord& rec, const config::TierConfig* tier,
                       size_t batch_hits);

  // Fleet mode's halves of Start, Cancel, Wait and Drain
  // (job_service_fleet.cc). CancelledInFleet: after the store took the
  // cancel of `rec`, stops the job here or tells the node that runs it.
  Status StartFleet();
  void CancelledInFleet(const store::JobRecord& rec);
  StatusOr<store::JobRecord> WaitFleet(const std::string& id, const std::string& tenant,
                                       std::chrono::milliseconds timeout);
  // Puts the claimed jobs `dropped` from the local queue back to queued.
  void RequeueClaimed(const std::vector<std::string>& dropped);
  // kChanged for job `id`: re-reads it unless it runs here (see OnNotice).
  void Refresh(const std::string& id) const;
  // Fleet mode: the channel of `id`, opened (and Refreshed) if the job is
  // non-terminal and has none here; nullptr for a terminal or unknown job.
  std::shared_ptr<JobChannel> OpenFleetChannel(const std::string& id) const;
  // Tells the fleet (deps.notices, if any).
  void Publish(store::JobNotice::Kind kind, const std::string& id);

  JobServiceDeps deps_;
  wire::SubmissionRules rules_;
  ImageDigests digests_;
  // Fleet mode with notices: live output to and from the other nodes.
  // Before executor_, which publishes through it.
  std::unique_ptr<OutputRelay> relay_;
  // Each tenant's finished jobs within its tier's bounds: after a job ends
  // here (the executor's, a cancel, a cache hit, recovery). Before
  // executor_, which uses it.
  TenantFootprint footprint_;
  JobExecutor executor_;
  WorkerPool pool_;
  JobJanitor janitor_;
  std::unique_ptr<ClaimLoop> claims_;  // Fleet mode only.
  // Fleet mode: deps.bounded (null: admission stays local).
  store::BoundedQueue* bounded_ = nullptr;
  // With webhooks and an outbox (deps.webhooks, deps.outbox), on this
  // node's name (config instance), in both modes.
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
