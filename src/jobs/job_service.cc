#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "coderunner/common/ids.h"
#include "coderunner/common/sha256.h"
#include "coderunner/engine/transport.h"
#include "coderunner/jobs/request_redaction.h"
#include "coderunner/jobs/webhook_sender.h"
#include "coderunner/store/job_store.h"
#include "coderunner/store/webhook_outbox.h"
#include "coderunner/wire/job_json.h"
#include "coderunner/wire/limits_json.h"
#include "job_metrics.h"
#include "job_service_impl.h"
#include "local_dispatch.h"
#include "result_cache_policy.h"
#include "webhook_outbox_loop.h"

namespace coderunner::jobs {
namespace {

// `dispatch`: the node the executor fences by and the notices it publishes
// through. `webhook_owed`: what the executor calls when a finished job owes
// a webhook (only with webhooks).
JobExecutorDeps ExecutorDepsOf(const JobServiceDeps& d, JobDispatch& dispatch,
                               const TenantFootprint* footprint,
                               std::function<void()> webhook_owed) {
  JobExecutorDeps e{d.config, d.store, d.hub, d.runner, d.metrics, nullptr, d.volumes, d.intents};
  e.footprint = footprint;
  e.judge = d.judge;
  e.packages = d.packages;
  if (d.webhooks != nullptr) e.webhook_owed = std::move(webhook_owed);
  e.node = dispatch.fence_node();
  e.notices = dispatch.executor_notices();
  return e;
}

// The dispatch a service of `d` uses: d.dispatch, or else `own` (made
// here, a LocalDispatch over d's queue).
JobDispatch* DispatchOf(const JobServiceDeps& d, std::unique_ptr<JobDispatch>& own) {
  if (d.dispatch != nullptr) return d.dispatch;
  own = NewLocalDispatch(
      LocalDispatchDeps{d.config, d.store, d.queue, d.hub, d.metrics, d.containers, d.pool});
  return own.get();
}

// How long an image's digest stands before it is looked up again (a
// rebuilt image is noticed within it), and how long a submission waits for
// the digest of an image never looked up (image_digests.h).
constexpr std::chrono::seconds kDigestTtl{10};
constexpr std::chrono::seconds kFirstDigestWait{10};
// How long a failure to reach the engine stands for /v1/execute, unless a
// run reaches it first: longer than the longest backoff of a job that
// waits for the engine (4 s), so it stays fresh while they wait.
constexpr std::chrono::seconds kEngineDownFresh{5};

JobJanitorDeps JanitorDepsOf(const JobServiceDeps& d) {
  return JobJanitorDeps{d.config, d.store, d.containers, d.pool};
}

}  // namespace

JobServiceImpl::JobServiceImpl(JobServiceDeps deps)
    : deps_(deps),
      rules_{wire::CapsFromConfig(*deps.config),
             [allow_private = deps.config->jobs.webhook_allow_private](const std::string& url) {
               return ValidateCallbackUrl(url, allow_private);
             }},
      digests_(deps.images, kDigestTtl, kFirstDigestWait),
      dispatch_(DispatchOf(deps, own_dispatch_)),
      footprint_(TenantFootprintDeps{deps.config, deps.store, deps.metrics}),
      executor_(ExecutorDepsOf(deps, *dispatch_, &footprint_,
                               [this] {
                                 if (webhook_loop_) webhook_loop_->Kick();
                               })),
      pool_(*deps.queue, executor_, WorkerThreads(*deps.config),
            [this](const std::string& id) { dispatch_->Released(id); }),
      janitor_(JanitorDepsOf(deps), [this] { return executor_.Active(); }) {
  DeclareJobMetrics(*deps_.metrics);
  dispatch_->Attach(&executor_, &footprint_);
  if (deps_.webhooks != nullptr && deps_.outbox != nullptr) {
    webhook_loop_ = std::make_unique<WebhookOutboxLoop>(
        WebhookOutboxLoopDeps{deps_.store, deps_.outbox, deps_.webhooks, deps_.config->instance});
  }
}

JobServiceImpl::~JobServiceImpl() { Stop(); }

std::unique_ptr<JobService> JobService::Create(JobServiceDeps deps) {
  return std::make_unique<JobServiceImpl>(deps);
}

Status JobServiceImpl::Start() {
  // Deliveries owed before a restart go out as soon as it runs.
  if (webhook_loop_) webhook_loop_->Start();
  CR_RETURN_IF_ERROR(dispatch_->Recover());
  deps_.metrics->Set("coderunner_queue_depth", {}, static_cast<double>(deps_.queue->size()));
  pool_.Start();
  dispatch_->Started();
  ready_ = true;
  starter_ = std::thread([this] {
    for (int attempt = 1;; ++attempt) {
      Status s = dispatch_->RecoverInterrupted();
      if (s.ok()) break;
      spdlog::warn("recovery of interrupted jobs failed (attempt {}): {}; retrying", attempt,
                   s.message());
      std::unique_lock<std::mutex> lock(start_mu_);
      if (start_cv_.wait_for(lock, std::chrono::seconds(std::min(attempt, 5)),
                             [&] { return stopping_; })) {
        return;
      }
    }
    std::lock_guard<std::mutex> lock(start_mu_);
    if (stopping_) return;
    // Now every workspace that is not a live job's is an orphan.
    janitor_.Start();
    janitor_.RunOnce();
  });
  return OkStatus();
}

void JobServiceImpl::Drain(std::chrono::milliseconds grace) {
  // Claim nothing more (a fleet); what this node holds goes back.
  dispatch_->StopTaking();
  std::vector<std::string> dropped;
  {
    std::unique_lock<std::shared_mutex> lock(submit_mu_);
    if (draining_) return;
    draining_ = true;
    dropped = deps_.queue->Close(/*drop_pending=*/true);
  }
  // Queued jobs are durable as they are; wake whoever waits on them (a
  // /v1/execute caller answers 503, /events ends on status queued).
  dispatch_->GiveBack(dropped);
  for (const auto& id : dropped) deps_.hub->Finish(id, store::JobStatus::kQueued, "");
  int running = executor_.running();
  spdlog::info("shutdown: {} queued job(s) stay queued; waiting up to {} ms for {} running",
               dropped.size(), grace.count(), running);
  if (executor_.WaitIdle(std::chrono::steady_clock::now() + grace)) return;
  int stopped = executor_.RequeueActive();
  spdlog::warn("shutdown: grace period over; stopping and re-queueing {} running job(s)", stopped);
  // A stopped job ends as fast as its container is killed.
  executor_.WaitIdle(std::chrono::steady_clock::time_point::max());
}

void JobServiceImpl::Stop() {
  {
    std::lock_guard<std::mutex> lock(start_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  start_cv_.notify_all();
  if (webhook_loop_) webhook_loop_->Stop();
  dispatch_->StopTaking();
  if (starter_.joinable()) starter_.join();
  executor_.Shutdown();
  pool_.Stop();
  dispatch_->Stop();  // Its threads may serve the jobs that ended with the pool.
  janitor_.Stop();
}

StatusOr<Accepted> JobServiceImpl::Submit(const std::string& tenant, wire::JobSubmission submission,
                                          const config::TierConfig* tier) {
  return Accept(tenant, std::move(submission), "", "", false, tier);
}

std::vector<StatusOr<Accepted>> JobServiceImpl::SubmitBatch(
    const std::string& tenant, std::vector<StatusOr<wire::JobSubmission>> entries,
    const config::TierConfig* tier) {
  std::vector<StatusOr<Accepted>> out;
  out.reserve(entries.size());
  // A batch is admitted as if each of its cache hits were still queued, so
  // a batch of hits stays within the tier's max_queued like one of misses.
  size_t hits = 0;
  for (auto& entry : entries) {
    if (!entry.ok()) {
      out.push_back(entry.status());
      continue;
    }
    out.push_back(Accept(tenant, std::move(*entry), "", "", false, tier, hits));
    if (out.back().ok() && out.back()->record.cached) ++hits;
  }
  return out;
}

StatusOr<Accepted> JobServiceImpl::Accept(const std::string& tenant, wire::JobSubmission submission,
                                          const std::string& pin_image,
                                          const std::string& replay_of, bool fail_fast,
                                          const config::TierConfig* tier, size_t batch_hits,
                                          const nlohmann::json& pin_packages) {
  const wire::ExecuteRequest& req = submission.request;
  store::JobRecord rec;
  rec.id = NewId("job");
  CR_ASSIGN_OR_RETURN(isolation::JobSpec job, wire::BuildJobSpec(req, *deps_.config, rec.id, tier));
  // As JobSpecFromRecord: container reuse is the tier's, within the tenant.
  if (tier != nullptr && tier->container_reuse) job.reuse_scope = tenant;
  std::optional<judge::JudgePlan> plan;
  if (req.judge) {
    CR_ASSIGN_OR_RETURN(plan, wire::BuildJudgePlan(req, job, *deps_.config, tier));
    rec.kind = kJudgeJobKind;
  }
  // The record names the configured image; a replay runs on the pinned
  // digest (recorded in image_digest once it runs).
  if (!job.volume.id.empty()) CR_RETURN_IF_ERROR(CheckVolume(tenant, tier, job.volume.id));
  const std::string image_name = job.language.image;
  if (!pin_image.empty()) job.language.image = pin_image;

  int64_t now = NowMs();
  rec.tenant = tenant;
  rec.language = job.language.name;
  rec.request_json = EncodeStoredBody(submission.body, pin_image, fail_fast,
                                      tier != nullptr ? tier->name : "", pin_packages);
  rec.code_sha256 = Sha256Hex(job.code);
  rec.inputs_sha256 = InputsSha256(job);
  rec.image = image_name;
  rec.limits_json = wire::LimitsToJson(job.limits).dump();
  rec.callback_url = std::move(submission.callback_url);
  rec.replay_of = replay_of;
  rec.created_at_ms = now;
  rec.transitions.push_back({store::JobStatus::kQueued, now});
  // A native job runs the host's interpreter, which no key captures (and a
  // container's cached result would not say "runtime": "native"): never cached.
  bool cache_on = deps_.config->jobs.cache_ttl_s > 0 &&
                  deps_.config->code_runner.runtime != config::RunMode::kNative;
  std::string digest = cache_on ? digests_.Get(job.language.image) : "";
  // A volume's contents are an input no key can capture: never cached.
  // Nor is a judgement (the key does not cover the cases).
  // A job with egress answers from the world outside, which changes.
  rec.cache_key = cache_on && job.volume.id.empty() && !job.egress && !plan
                      ? CacheKey(job, tenant, digest, req.output_encoding)
                      : "";

  if (submission.use_cache && !rec.cache_key.empty()) {
    auto hit = deps_.store->CacheGet(rec.cache_key, now);
    std::optional<std::string> cached = hit.ok() ? *hit : std::nullopt;
    if (cached) {
      // Leaves `rec` as it was unless it answers.
      std::optional<StatusOr<Accepted>> answered =
          AnswerFromCache(rec, *cached, digest, tier, batch_hits);
      if (answered) return std::move(*answered);
    }
    deps_.metrics->Increment("coderunner_cache_misses_total");
  }

  const int64_t output_cap = job.limits.output_bytes;
  std::unique_ptr<RunnableJob> prepared;
  if (fail_fast) {
    prepared = std::make_unique<RunnableJob>(
        RunnableJob{std::move(job), req.output_encoding, /*fail_fast=*/true, std::move(plan)});
  }
  return Enqueue(std::move(rec), tier, output_cap, batch_hits, std::move(prepared));
}

std::optional<StatusOr<Accepted>> JobServiceImpl::AnswerFromCache(store::JobRecord& rec,
                                                                  const std::string& cached_json,
                                                                  const std::string& digest,
                                                                  const config::TierConfig* tier,
                                                                  size_t batch_hits) {
  nlohmann::json result = nlohmann::json::parse(cached_json, nullptr, false);
  auto status =
      result.is_object() ? store::ParseJobStatus(result.value("status", "")) : std::nullopt;
  if (!status || !IsCacheableStatus(*status)) return std::nullopt;
  {
    // A hit is a job too: it meets the same bounds as one that is queued
    // (a flood of hits would otherwise bypass max_queued).
    std::shared_lock<std::shared_mutex> draining_lock(submit_mu_);
    Status admitted = Draining();
    if (admitted.ok()) admitted = dispatch_->Reserve(rec.tenant, tier, batch_hits);
    if (!admitted.ok()) return admitted;
    dispatch_->Unreserve();  // Admitted; a hit never waits in the queue.
  }
  int64_t now = rec.created_at_ms;
  result["id"] = rec.id;
  result["cached"] = true;
  rec.status = *status;
  rec.cached = true;
  rec.image_digest = digest;
  rec.finished_at_ms = now;
  rec.transitions.push_back({*status, now});
  rec.result_json = result.dump();
  Status inserted = dispatch_->Commit(rec, tier, batch_hits);
  if (!inserted.ok()) return inserted;
  footprint_.Enforce(rec.tenant);
  deps_.metrics->Increment("coderunner_cache_hits_total");
  deps_.metrics->Increment(
      "coderunner_jobs_total",
      {{"status", std::string(store::JobStatusName(*status))}, {"language", rec.language}});
  // The insert wrote the webhook the hit owes (WebhookOutbox).
  if (!rec.callback_url.empty() && webhook_loop_) webhook_loop_->Kick();
  return Accepted{std::move(rec), nullptr};
}

StatusOr<Accepted> JobServiceImpl::SubmitRecord(store::JobRecord rec,
                                                const config::TierConfig* tier,
                                                int64_t output_cap) {
  return Enqueue(std::move(rec), tier, output_cap, 0);
}

StatusOr<Accepted> JobServiceImpl::Enqueue(store::JobRecord rec, const config::TierConfig* tier,
                                           int64_t output_cap, size_t batch_hits,
                                           std::unique_ptr<RunnableJob> prepared) {
  const std::string tenant = rec.tenant;
  CR_RETURN_IF_ERROR(RoomOnDisk());
  std::shared_lock<std::shared_mutex> draining_lock(submit_mu_);
  CR_RETURN_IF_ERROR(Draining());
  CR_RETURN_IF_ERROR(dispatch_->Reserve(tenant, tier, batch_hits));
  // The channel exists before anyone can learn the id, so a /wait can never
  // miss the wake-up.
  auto channel = deps_.hub->Open(rec.id, output_cap);
  // The worker runs from the record as committed, not read back by id.
  if (prepared) {
    channel->SetPrepared(std::move(prepared));
    channel->SetAccepted(rec);
  } else if (rec.kind == "intent") {
    channel->SetAccepted(rec);
  }
  Status inserted = dispatch_->Commit(rec, tier, batch_hits);
  if (!inserted.ok()) {
    deps_.hub->Finish(rec.id, store::JobStatus::kError, "");
    return inserted;
  }
  dispatch_->Dispatch(rec, tier);
  return Accepted{std::move(rec), std::move(channel)};
}

StatusOr<ExecuteAnswer> JobServiceImpl::Execute(const std::string& tenant,
                                                wire::JobSubmission submission,
                                                const config::TierConfig* tier) {
  if (!ready_) return UnavailableError("the service is not started", "not_started");
  // Jobs are waiting for an engine that is down: answer now, not behind them.
  if (auto down = executor_.engine_health().DownWithin(kEngineDownFresh)) {
    return UnavailableError("engine unavailable: " + down->message(),
                            engine::kReasonEngineUnavailable);
  }
  CR_ASSIGN_OR_RETURN(Accepted accepted,
                      Accept(tenant, std::move(submission), "", "", /*fail_fast=*/true, tier));
  const std::string id = accepted.record.id;
  if (!accepted.channel) {
    return ExecuteAnswer{id, accepted.record.status, std::move(accepted.record.result_json)};
  }
  // The job always ends: the runner bounds it by its own timeout.
  accepted.channel->WaitTerminal(std::chrono::steady_clock::time_point::max());
  std::string raw = accepted.channel->raw_result_json();
  if (!raw.empty()) {
    // The job never ran because the engine was unreachable: that is a 503
    // for a synchronous caller (the record says so too).
    Status run_error = accepted.channel->run_error();
    if (run_error.reason() == engine::kReasonEngineUnavailable) {
      return UnavailableError(run_error.message(), engine::kReasonEngineUnavailable);
    }
    return ExecuteAnswer{id, accepted.channel->final_status(), std::move(raw)};
  }
  CR_ASSIGN_OR_RETURN(store::JobRecord rec, deps_.store->Get(id, tenant));
  if (rec.status == store::JobStatus::kQueued) {
    return UnavailableError("the service is shutting down; job " + rec.id +
                                " was re-queued and runs when the service starts again (GET "
                                "/v1/jobs/" +
                                rec.id + ")",
                            "shutting_down");
  }
  if (!rec.result_json.empty()) return ExecuteAnswer{id, rec.status, std::move(rec.result_json)};
  return ExecuteAnswer{
      id, rec.status,
      nlohmann::json{
          {"id", rec.id}, {"status", store::JobStatusName(rec.status)}, {"error", nullptr}}
          .dump()};
}

StatusOr<store::JobRecord> JobServiceImpl::Get(const std::string& id, const std::string& tenant) {
  return deps_.store->Get(id, tenant);
}

StatusOr<store::JobRecord> JobServiceImpl::Wait(const std::string& id, const std::string& tenant,
                                                std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    CR_ASSIGN_OR_RETURN(store::JobRecord rec, deps_.store->Get(id, tenant));
    if (store::IsTerminal(rec.status) || std::chrono::steady_clock::now() >= deadline) return rec;
    // A channel that ended on a status that is not terminal (a requeue)
    // loops: a fleet opens another for the job wherever it runs next.
    std::shared_ptr<JobChannel> ch = dispatch_->Follow(id);
    if (!ch) return deps_.store->Get(id, tenant);
    ch->WaitTerminal(deadline);
  }
}

StatusOr<store::JobRecord> JobServiceImpl::Cancel(const std::string& id,
                                                  const std::string& tenant) {
  CR_ASSIGN_OR_RETURN(store::JobRecord rec, deps_.store->Get(id, tenant));
  if (store::IsTerminal(rec.status)) return rec;
  // Unfenced: a user's cancel wins over whichever node runs the job.
  Status s =
      deps_.store->Transition(id, store::JobStatus::kCancelled, NowMs(),
                              wire::NotRunResultJson(rec, store::JobStatus::kCancelled, nullptr));
  if (!s.ok() && s.reason() != store::kReasonJobTerminal) return s;
  if (s.ok()) {
    footprint_.Enforce(tenant);
    deps_.metrics->Increment("coderunner_jobs_total",
                             {{"status", "cancelled"}, {"language", rec.language}});
    // The cancel wrote the webhook it owes (WebhookOutbox): send it now.
    if (!rec.callback_url.empty() && webhook_loop_) webhook_loop_->Kick();
    dispatch_->Cancelled(rec);
  }
  return deps_.store->Get(id, tenant);
}

StatusOr<store::ListPage> JobServiceImpl::List(const store::ListFilter& filter) {
  return deps_.store->List(filter);
}

StatusOr<Accepted> JobServiceImpl::Replay(const std::string& id, const std::string& tenant,
                                          const config::TierConfig* tier) {
  CR_ASSIGN_OR_RETURN(store::JobRecord rec, deps_.store->Get(id, tenant));
  if (rec.kind != "job") {
    return FailedPreconditionError(
        "job " + id + " is an intent; replay runs a job's code again, and an intent's code is " +
            "the model's: submit the intent again, or run attempts[-1] of its record as a job",
        "replay_unsupported");
  }
  if (StoredRequestWasRedacted(rec.request_json)) {
    return FailedPreconditionError(
        "job " + id + " finished, and secret-looking parts of its stored request were removed " +
            "then (see docs/api.md, Requests at rest): a replay would not run what it ran; "
            "submit the request again",
        "request_redacted");
  }
  CR_ASSIGN_OR_RETURN(StoredRequest stored, ParseStoredRequest(rec.request_json));
  // Pin the digest the original actually ran on; before it ran, whatever it
  // was pinned to (or nothing).
  std::string pin = !rec.image_digest.empty() ? rec.image_digest : stored.pin_image;
  CR_ASSIGN_OR_RETURN(wire::JobSubmission submission,
                      wire::JobSubmissionFromJson(std::move(stored.body), rules_));
  submission.use_cache = false;  // A replay re-runs; it never answers from the cache.
  // Its packages too: exactly the files the original installed, by hash.
  nlohmann::json packages = stored.pin_packages;
  if (auto result = nlohmann::json::parse(rec.result_json, nullptr, false);
      result.is_object() && result.contains("packages") && result["packages"].is_object()) {
    const nlohmann::json& installed = result["packages"];
    packages =
        installed.contains("npm") ? installed["npm"] : installed.value("python", nlohmann::json());
  }
  return Accept(tenant, std::move(submission), pin, id, false, tier, 0, packages);
}

Status JobServiceImpl::CheckVolume(const std::string& tenant, const config::TierConfig* tier,
                                   const std::string& volume_id) const {
  if (deps_.volumes == nullptr) {
    return FailedPreconditionError("persistent volumes are not available on this service",
                                   "volumes_unavailable");
  }
  return deps_.volumes->Resolve(tenant, tier, volume_id).status();
}

void JobServiceImpl::UpdateScrapeGauges(MetricsRegistry& metrics) const {
  metrics.Set("coderunner_queue_depth", {}, static_cast<double>(deps_.queue->size()));
  if (deps_.webhooks != nullptr) {
    auto w = deps_.webhooks->stats();
    metrics.Set("coderunner_webhooks", {{"result", "delivered"}}, static_cast<double>(w.delivered));
    metrics.Set("coderunner_webhooks", {{"result", "failed"}}, static_cast<double>(w.failed));
    metrics.Set("coderunner_webhooks", {{"result", "dropped"}}, static_cast<double>(w.dropped));
  }
}

std::shared_ptr<JobChannel> JobServiceImpl::Channel(const std::string& id) const {
  return dispatch_->Follow(id);
}

}  // namespace coderunner::jobs
