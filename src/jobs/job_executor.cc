#include "coderunner/jobs/job_executor.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "coderunner/isolation/workspace.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/jobs/redactor.h"
#include "coderunner/store/job_store.h"
#include "coderunner/wire/job_json.h"
#include "executor_attempt.h"
#include "result_cache_policy.h"

namespace coderunner::jobs {
namespace {

store::JobStatus FromRunStatus(isolation::RunStatus s) {
  switch (s) {
    case isolation::RunStatus::kSucceeded:
      return store::JobStatus::kSucceeded;
    case isolation::RunStatus::kFailed:
      return store::JobStatus::kFailed;
    case isolation::RunStatus::kTimeout:
      return store::JobStatus::kTimeout;
    case isolation::RunStatus::kOom:
      return store::JobStatus::kOom;
    case isolation::RunStatus::kCancelled:
      return store::JobStatus::kCancelled;
    case isolation::RunStatus::kError:
      return store::JobStatus::kError;
  }
  return store::JobStatus::kError;
}

// Sleeps `d` unless the job is cancelled first. Returns false if cancelled.
bool BackoffWait(isolation::CancelToken& token, std::chrono::milliseconds d) {
  std::mutex mu;
  std::condition_variable cv;
  bool woken = false;
  token.OnCancel([&] {
    std::lock_guard<std::mutex> lock(mu);
    woken = true;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait_for(lock, d, [&] { return woken; });
  }
  token.OnCancel(nullptr);
  return !token.cancelled();
}

// A store that cannot take a result now: a full disk, a store that is down.
// Offered again until it can (StoreResult).
bool MayTakeItLater(const Status& s) {
  return s.code() == StatusCode::kResourceExhausted || s.code() == StatusCode::kUnavailable;
}

constexpr std::chrono::milliseconds kStoreRetryFirst{100};
constexpr std::chrono::milliseconds kStoreRetryMax{2000};

}  // namespace

std::set<std::string> JobExecutor::Active() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_;
}

int JobExecutor::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(active_.size());
}

void JobExecutor::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  shutdown_cv_.notify_all();
}

Status JobExecutor::StoreResult(const std::string& id, store::JobStatus status, int64_t finished,
                                const std::string& stored_json, const std::string& image_digest,
                                int64_t artifact_bytes) {
  auto backoff = kStoreRetryFirst;
  for (int tries = 1;; ++tries) {
    Status done = deps_.store->Transition(id, status, finished, stored_json, image_digest,
                                          deps_.node, artifact_bytes);
    if (done.ok() || !MayTakeItLater(done)) return done;
    if (tries == 1) {
      spdlog::error("job {}: cannot store result: {}; offering it again until the store takes it",
                    id, done.ToString());
    }
    deps_.metrics->Increment("coderunner_result_store_retries_total", {{"reason", done.reason()}});
    std::unique_lock<std::mutex> lock(mu_);
    if (shutdown_cv_.wait_for(lock, backoff,
                              [&] { return shutdown_.load() || requeue_cancelled_.load(); })) {
      spdlog::error("job {}: result not stored at shutdown ({} tries): {}", id, tries,
                    done.ToString());
      return done;
    }
    backoff = std::min(backoff * 2, kStoreRetryMax);
  }
}

bool JobExecutor::WaitIdle(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  return idle_cv_.wait_until(lock, deadline, [&] { return active_.empty(); });
}

int JobExecutor::RequeueActive() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    requeue_cancelled_ = true;
  }
  shutdown_cv_.notify_all();  // Results still offered to the store are given up.
  std::set<std::string> ids = Active();
  for (const auto& id : ids) {
    if (auto ch = deps_.hub->Find(id)) ch->cancel_token().Cancel();
  }
  return static_cast<int>(ids.size());
}

void JobExecutor::Publish(store::JobNotice::Kind kind, const std::string& id) const {
  if (deps_.notices == nullptr) return;
  Status s = deps_.notices->Publish(store::JobNotice{kind, id});
  if (!s.ok()) spdlog::warn("job {}: cannot tell the fleet: {}", id, s.ToString());
}

bool JobExecutor::Requeue(const store::JobRecord& record) {
  // Going back to queued counts an attempt (store contract), like a crash
  // recovery would; from a terminal status it fails, so a user's cancel
  // that landed first stands. In fleet mode fenced: a job this node lost
  // is not ours to requeue.
  Status s =
      deps_.store->Transition(record.id, store::JobStatus::kQueued, NowMs(), "", "", deps_.node);
  if (!s.ok()) {
    if (s.reason() != store::kReasonJobTerminal && s.reason() != store::kReasonLeaseLost) {
      spdlog::error("job {}: cannot re-queue at shutdown: {}", record.id, s.ToString());
    }
    return false;
  }
  spdlog::info("job {}: stopped at shutdown and re-queued; it runs again at the next start",
               record.id);
  deps_.metrics->Increment("coderunner_jobs_requeued_total");
  deps_.hub->Finish(record.id, store::JobStatus::kQueued, "");
  Publish(store::JobNotice::Kind::kQueued, "");
  Publish(store::JobNotice::Kind::kChanged, record.id);
  return true;
}

StatusOr<store::JobRecord> JobExecutor::Load(const std::string& id) {
  // Fleet mode reads the store: whether the claim still holds is known
  // there only.
  if (deps_.node.empty()) {
    if (std::shared_ptr<JobChannel> ch = deps_.hub->Find(id)) {
      if (std::optional<store::JobRecord> accepted = ch->TakeAccepted()) {
        return std::move(*accepted);
      }
    }
  }
  return deps_.store->Get(id);
}

void JobExecutor::Execute(const std::string& id) {
  StatusOr<store::JobRecord> rec = Load(id);
  if (!rec.ok()) {
    spdlog::error("job {}: cannot load: {}", id, rec.status().ToString());
    deps_.hub->Finish(id, store::JobStatus::kError, "");
    return;
  }
  if (store::IsTerminal(rec->status)) {
    // Cancelled while it waited in the queue.
    deps_.hub->Finish(id, rec->status, "");
    return;
  }
  if (!OwnedHere(*rec)) {
    // Fleet mode: its lease was lost while it waited for a worker; another
    // node runs it (or will), and its waiters hear of it from the store.
    spdlog::info("job {}: no longer claimed by this node; not run here", id);
    return;
  }
  RenewStaleCancel(*rec);
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_.insert(id);
  }
  deps_.metrics->Set("coderunner_jobs_running", {}, running());
  Run(*rec);
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_.erase(id);
  }
  idle_cv_.notify_all();
  // A job's output passes through a few transient copies (result JSON,
  // redacted copy, store); give the freed pages back so the service's RSS
  // stays flat across jobs instead of keeping glibc's high-water mark.
  malloc_trim(0);
  deps_.metrics->Set("coderunner_jobs_running", {}, running());
}

void JobExecutor::Run(const store::JobRecord& record) {
  int64_t started = NowMs();
  std::shared_ptr<JobChannel> ch = MarkRunning(record, started);
  if (!ch) return;
  if (record.kind == "intent") {
    RunIntent(record, *ch, started);
    return;
  }
  Attempt attempt = Prepare(record, *ch);
  if (attempt.result.error.ok()) {
    if (attempt.judge) {
      RunJudged(attempt, *ch);
    } else {
      attempt.result = RunSpec(attempt.spec, *ch, attempt.fail_fast);
    }
  }
  Commit(record, *ch, attempt, started);
}

std::shared_ptr<JobChannel> JobExecutor::MarkRunning(const store::JobRecord& record,
                                                     int64_t started) {
  const std::string& id = record.id;
  // Fleet mode: the claim already moved it to running (started_at, owner,
  // lease); only its channel is told.
  Status moved = deps_.node.empty()
                     ? deps_.store->Transition(id, store::JobStatus::kRunning, started)
                     : OkStatus();
  if (!moved.ok()) {
    if (moved.reason() != store::kReasonJobTerminal) {
      spdlog::error("job {}: cannot mark running: {}", id, moved.ToString());
    }
    auto now = deps_.store->Get(id);
    deps_.hub->Finish(id, now.ok() ? now->status : store::JobStatus::kError, "");
    return nullptr;
  }
  deps_.metrics->Observe("coderunner_job_queue_seconds", {},
                         static_cast<double>(started - record.created_at_ms) / 1000.0);
  std::shared_ptr<JobChannel> ch = deps_.hub->Find(id);
  if (!ch) {
    // Its channel is gone only if a cancel finished the job between the
    // transition above and here: it must not run.
    spdlog::info("job {}: cancelled before it started", id);
    return nullptr;
  }
  ch->PublishStatus(store::JobStatus::kRunning);
  Publish(store::JobNotice::Kind::kChanged, id);
  return ch;
}

void JobExecutor::RunIntent(const store::JobRecord& record, JobChannel& channel, int64_t started) {
  if (deps_.intents != nullptr) {
    deps_.intents->Run(record, channel, *this);
    return;
  }
  // Accepted while a model was configured, and the service restarted
  // without one.
  Complete(record, store::JobStatus::kError,
           wire::NotRunResultJson(record, store::JobStatus::kError,
                                  {{"code", "llm_not_configured"},
                                   {"message", "this service has no LLM configured (llm.*)"}}),
           "", "", started);
}

JobExecutor::Attempt JobExecutor::Prepare(const store::JobRecord& record, JobChannel& channel) {
  Attempt attempt;
  // Built once at acceptance when it was handed over; otherwise (recovered
  // or queued without its body in memory) rebuilt from the stored request.
  std::unique_ptr<RunnableJob> prepared = channel.TakePrepared();
  StatusOr<RunnableJob> runnable = prepared ? StatusOr<RunnableJob>(std::move(*prepared))
                                            : JobSpecFromRecord(record, *deps_.config);
  prepared.reset();
  if (!runnable.ok()) {
    // The config changed under a stored job (e.g. a language was removed).
    attempt.result.status = isolation::RunStatus::kError;
    attempt.result.error = runnable.status();
    attempt.spec.id = record.id;
    attempt.spec.language.name = record.language;
    return attempt;
  }
  attempt.spec = std::move(runnable->spec);
  attempt.encoding = runnable->encoding;
  attempt.fail_fast = runnable->fail_fast;
  attempt.keep_raw = runnable->fail_fast;
  attempt.judge = std::move(runnable->judge);
  if (!attempt.spec.volume.id.empty()) {
    // Resolved again at run time: the volume may have been deleted while
    // the job waited. The tier was checked when the job was accepted.
    auto mount = deps_.volumes != nullptr
                     ? deps_.volumes->Resolve(record.tenant, nullptr, attempt.spec.volume.id)
                     : StatusOr<isolation::VolumeMount>(FailedPreconditionError(
                           "persistent volumes are not available", "volumes_unavailable"));
    if (mount.ok()) {
      attempt.spec.volume = std::move(*mount);
    } else {
      attempt.result.status = isolation::RunStatus::kError;
      attempt.result.error = mount.status();
      attempt.result.image = attempt.spec.language.image;
    }
  }
  if (attempt.result.error.ok() &&
      (!attempt.spec.python_packages.empty() || !attempt.spec.npm_packages.empty())) {
    Status installed = InstallPackages(record, attempt);
    if (!installed.ok()) {
      attempt.result.status = isolation::RunStatus::kError;
      attempt.result.error = installed;
      attempt.result.image = attempt.spec.language.image;
    }
  }
  return attempt;
}

void JobExecutor::Commit(const store::JobRecord& record, JobChannel& channel, Attempt& attempt,
                         int64_t started) {
  const std::string& id = record.id;
  const isolation::RunResult& result = attempt.result;
  store::JobStatus status = FromRunStatus(result.status);
  std::string raw_text;
  std::string stored_text;
  const bool redacted = Serialize(attempt, &raw_text, &stored_text);
  const std::string& stored_ref = redacted ? stored_text : raw_text;
  // Only a /v1/execute caller (fail_fast) reads the raw result from the
  // channel. Any other job's is freed before the wake, not held for as long
  // as /events streams hold the channel while they read the record.
  const bool keep_raw = attempt.keep_raw;
  std::string no_raw;
  std::string& raw_for_waiters = keep_raw ? raw_text : no_raw;
  // Only what the program determined is cached (result_cache_policy.h).
  // The cache is filled before waiters wake, so a caller that sees the
  // result finds the service done with the job's output.
  const bool cacheable = MayCacheResult(status, result);
  auto fill_cache = [&] {
    if (cacheable && !record.cache_key.empty() && deps_.config->jobs.cache_ttl_s > 0) {
      Status put = deps_.store->CachePut(record.cache_key, stored_ref,
                                         NowMs() + deps_.config->jobs.cache_ttl_s * 1000);
      if (!put.ok()) spdlog::warn("job {}: cache put: {}", id, put.ToString());
    }
    // Stored (and cached): stored_ref is not read again.
    if (!keep_raw) std::string().swap(raw_text);
    // Give the freed pages back now, not after the caller has its answer:
    // the service's RSS stays flat across jobs (glibc keeps its high-water
    // mark otherwise).
    malloc_trim(0);
  };
  if (status == store::JobStatus::kError) channel.SetRunError(result.error);
  if (!Complete(record, status, stored_ref, std::move(raw_for_waiters), result.image_digest,
                started, fill_cache)) {
    return;
  }
  if (status == store::JobStatus::kError) {
    spdlog::warn("job {}: error: {}", id, result.error.ToString());
  }
}

bool JobExecutor::Complete(const store::JobRecord& record, store::JobStatus status,
                           const std::string& stored_json, std::string&& raw_json,
                           const std::string& image_digest, int64_t started_ms,
                           const std::function<void()>& before_wake) {
  const std::string& id = record.id;
  // Stopped by a graceful shutdown rather than by its owner: back to the
  // queue (intents included: they run again from the start).
  if (status == store::JobStatus::kCancelled && requeue_cancelled_ && Requeue(record)) return false;
  int64_t finished = NowMs();
  // Measured once nothing writes them, and recorded with the terminal move.
  const std::string& artifacts_dir = deps_.config->artifacts.dir;
  Status done = StoreResult(id, status, finished, stored_json, image_digest,
                            KeptArtifactBytes(artifacts_dir, id));
  if (!done.ok()) {
    if (done.reason() == store::kReasonLeaseLost) {
      spdlog::warn("job {}: lease lost (another node owns it now); result dropped", id);
    } else if (done.reason() == store::kReasonJobTerminal) {
      // The status that won lists none of this run's artifacts: nobody
      // could fetch them, and nothing counts them.
      (void)isolation::RemoveTree(artifacts_dir + "/" + id);
    } else {
      spdlog::error("job {}: cannot store result: {}", id, done.ToString());
    }
    // A cancel won the race; its status stands. A lost lease: the waiters
    // here read the status the store holds (the run's result is dropped).
    auto now = deps_.store->Get(id);
    if (done.reason() == store::kReasonLeaseLost) raw_json.clear();
    deps_.hub->Finish(id, now.ok() ? now->status : status, std::move(raw_json));
    return false;
  }
  // Within the tenant's bounds before anyone learns that the job ended.
  if (deps_.footprint != nullptr) deps_.footprint->Enforce(record.tenant);
  if (before_wake) before_wake();
  std::string status_name(store::JobStatusName(status));
  deps_.metrics->Increment("coderunner_jobs_total",
                           {{"status", status_name}, {"language", record.language}});
  deps_.metrics->Observe("coderunner_job_run_seconds", {},
                         static_cast<double>(finished - started_ms) / 1000.0);
  deps_.metrics->Observe("coderunner_job_total_seconds", {},
                         static_cast<double>(finished - record.created_at_ms) / 1000.0);
  deps_.hub->Finish(id, status, std::move(raw_json));
  Publish(store::JobNotice::Kind::kChanged, id);
  if (!record.callback_url.empty() && deps_.webhook_owed) deps_.webhook_owed();
  return true;
}

isolation::RunResult JobExecutor::RunSpec(const isolation::JobSpec& spec, JobChannel& channel,
                                          bool fail_fast) {
  const std::string& id = spec.id;
  JobChannel* ch = &channel;
  isolation::RunResult result;
  isolation::RunHooks hooks;
  hooks.on_output = [&](engine::StreamId s, std::string_view bytes) {
    ch->PublishOutput(s == engine::StreamId::kStderr, bytes);
  };
  hooks.cancel = &ch->cancel_token();
  auto first_failure = std::chrono::steady_clock::now();
  auto backoff = std::chrono::milliseconds(250);
  for (;;) {
    const auto tried = std::chrono::steady_clock::now();
    auto run = deps_.runner->Run(spec, hooks);
    if (run.ok()) {
      engine_health_.Reached(tried);
      // Engine failures after the job started are in the result (counted
      // below); the loop handles those that kept it from starting.
      result = std::move(*run);
      break;
    }
    // The engine could not be reached at all: the job never started, so
    // it can wait for the engine to come back, within a bound.
    deps_.metrics->Increment("coderunner_engine_errors_total", {{"kind", "unavailable"}});
    engine_health_.Unreachable(run.status());
    auto waited = std::chrono::steady_clock::now() - first_failure;
    if (shutdown_ || fail_fast || ch->cancel_token().cancelled() ||
        waited >= std::chrono::seconds(deps_.config->jobs.engine_retry_s) ||
        !BackoffWait(ch->cancel_token(), backoff)) {
      result.status = ch->cancel_token().cancelled() ? isolation::RunStatus::kCancelled
                                                     : isolation::RunStatus::kError;
      result.error = run.status();
      result.image = spec.language.image;
      break;
    }
    spdlog::warn("job {}: engine unavailable, retrying: {}", id, run.status().message());
    backoff = std::min(backoff * 2, std::chrono::milliseconds(4000));
  }
  if (result.status == isolation::RunStatus::kError &&
      result.error.reason().rfind("engine_", 0) == 0) {
    deps_.metrics->Increment("coderunner_engine_errors_total", {{"kind", result.error.reason()}});
  }
  return result;
}

}  // namespace coderunner::jobs
