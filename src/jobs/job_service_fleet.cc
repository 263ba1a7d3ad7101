// JobService in fleet mode (JobServiceDeps::fleet): the store is the queue
// that the nodes share; notices tell the other nodes to look again.
#include <spdlog/spdlog.h>

#include <set>
#include <string>
#include <vector>

#include "claim_loop.h"
#include "coderunner/isolation/workspace.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/wire/job_json.h"
#include "job_metrics.h"
#include "output_relay.h"
#include "recovery.h"

namespace coderunner::jobs {

namespace {

// The jobs running and owned by `node` as it starts: its own restart
// interrupted them (read before it claims anything).
StatusOr<std::vector<store::JobRecord>> OwnRunning(store::JobStore& store,
                                                   const std::string& node) {
  CR_ASSIGN_OR_RETURN(std::vector<store::JobRecord> open, store.NonTerminal());
  std::vector<store::JobRecord> own;
  for (auto& rec : open) {
    if (rec.status == store::JobStatus::kRunning && rec.owner == node)
      own.push_back(std::move(rec));
  }
  return own;
}

// Each of `own` (OwnRunning) not running here again (`active`: its lease
// expired and this node claimed it anew), its container removed as an
// orphan by now, loses the workspace that run left under `workspace_dir`
// (the next run here would fail to create it), then goes back to queued
// (fenced by `node`), or past `max_attempts` ends as error interrupted.
// Returns how many were requeued.
int RequeueOwnRunning(store::JobStore& store, const std::vector<store::JobRecord>& own,
                      const std::set<std::string>& active, const std::string& node,
                      const std::string& workspace_dir, int max_attempts,
                      store::JobNotices* notices) {
  int requeued = 0;
  for (const store::JobRecord& rec : own) {
    if (active.count(rec.id) > 0) continue;
    (void)isolation::RemoveTree(workspace_dir + "/" + rec.id);
    const bool last = rec.attempt >= max_attempts;
    std::string result =
        last ? wire::NotRunResultJson(
                   rec, store::JobStatus::kError,
                   {{"code", "interrupted"},
                    {"message", "the node running this job restarted on its last attempt"}})
             : "";
    Status s = store.Transition(rec.id, last ? store::JobStatus::kError : store::JobStatus::kQueued,
                                NowMs(), result, "", node);
    if (!s.ok()) continue;  // Taken elsewhere meanwhile (lease expired).
    requeued += last ? 0 : 1;
    if (notices != nullptr) (void)notices->Publish({store::JobNotice::Kind::kChanged, rec.id});
  }
  return requeued;
}

}  // namespace

Status JobService::StartFleet() {
  // Queued jobs are the claim loop's. Running jobs of this node (a restart
  // of the same instance) lost their runs: once the orphan sweep removed
  // their containers they are requeued (RequeueOwnRunning). Other nodes'
  // running jobs are left to their leases.
  CR_ASSIGN_OR_RETURN(std::vector<store::JobRecord> own,
                      OwnRunning(*deps_.store, deps_.config->instance));
  pool_.Start();
  claims_->Start();
  ready_ = true;
  starter_ = std::thread([this, own = std::move(own)] {
    auto report = std::make_shared<RecoveryReport>();
    std::vector<store::JobRecord> none;
    for (int attempt = 1;; ++attempt) {
      Status s = RecoverInterrupted(
          RecoveryDeps{deps_.config, deps_.store, deps_.queue, deps_.hub, deps_.containers,
                       deps_.pool},
          none, [this] { return executor_.Active(); }, report.get());
      if (s.ok()) break;
      spdlog::warn("orphan sweep failed (attempt {}): {}; retrying", attempt, s.message());
      std::unique_lock<std::mutex> lock(start_mu_);
      if (start_cv_.wait_for(lock, std::chrono::seconds(std::min(attempt, 5)),
                             [&] { return stopping_; })) {
        return;
      }
    }
    if (RequeueOwnRunning(*deps_.store, own, executor_.Active(), deps_.config->instance,
                          deps_.config->workspace_dir, deps_.config->store.max_attempts,
                          deps_.notices) > 0) {
      Publish(store::JobNotice::Kind::kQueued, "");
      claims_->Kick();
    }
    std::lock_guard<std::mutex> lock(start_mu_);
    if (stopping_) return;
    janitor_.Start();
  });
  return OkStatus();
}

void JobService::Publish(store::JobNotice::Kind kind, const std::string& id) {
  if (deps_.notices == nullptr) return;
  Status s = deps_.notices->Publish(store::JobNotice{kind, id});
  if (!s.ok()) spdlog::warn("job {}: cannot tell the fleet: {}", id, s.ToString());
}

void JobService::RequeueClaimed(const std::vector<std::string>& dropped) {
  int requeued = 0;
  for (const auto& id : dropped) {
    claims_->Release(id);
    Status s = deps_.store->Transition(id, store::JobStatus::kQueued, NowMs(), "", "",
                                       deps_.config->instance);
    if (s.ok()) {
      ++requeued;
      Publish(store::JobNotice::Kind::kChanged, id);
    } else if (s.reason() != store::kReasonJobTerminal && s.reason() != store::kReasonLeaseLost) {
      spdlog::error("job {}: cannot give back at shutdown: {}", id, s.ToString());
    }
  }
  if (requeued > 0) Publish(store::JobNotice::Kind::kQueued, "");
}

void JobService::CancelledInFleet(const store::JobRecord& rec) {
  const std::string& id = rec.id;
  if (deps_.queue->Remove(id)) claims_->Release(id);
  const bool runs_here = executor_.Active().count(id) > 0;
  if (runs_here) {
    if (auto ch = deps_.hub->Find(id)) ch->cancel_token().Cancel();
  } else {
    Publish(store::JobNotice::Kind::kCancel, id);
    if (relay_) relay_->Forget(id);
    deps_.hub->Finish(id, store::JobStatus::kCancelled, "");
  }
  Publish(store::JobNotice::Kind::kChanged, id);
}

StatusOr<store::JobRecord> JobService::WaitFleet(const std::string& id, const std::string& tenant,
                                                 std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    CR_ASSIGN_OR_RETURN(store::JobRecord rec, deps_.store->Get(id, tenant));
    if (store::IsTerminal(rec.status) || std::chrono::steady_clock::now() >= deadline) return rec;
    // Submitted on another node (or its channel here ended on a requeue):
    // a channel is opened here. One that ended on a non-terminal status (a
    // requeue) loops.
    std::shared_ptr<JobChannel> ch = OpenFleetChannel(id);
    if (ch) ch->WaitTerminal(deadline);
  }
}

std::shared_ptr<JobChannel> JobService::OpenFleetChannel(const std::string& id) const {
  if (auto ch = deps_.hub->Find(id)) return ch;
  auto rec = deps_.store->Get(id);
  if (!rec.ok() || store::IsTerminal(rec->status)) return nullptr;
  // Opened before the read in Refresh: a notice that came before the open
  // is made good by that read.
  deps_.hub->Open(id, deps_.config->max_limits.output_bytes);
  Refresh(id);
  return deps_.hub->Find(id);
}

void JobService::Refresh(const std::string& id) const {
  std::shared_ptr<JobChannel> ch = deps_.hub->Find(id);
  if (!ch || executor_.Active().count(id) > 0) return;
  // Claimed here and waiting for a worker: this node tells its waiters.
  for (const auto& held : claims_->Held()) {
    if (held == id) return;
  }
  auto rec = deps_.store->Get(id);
  if (!rec.ok()) {
    if (rec.status().reason() == store::kReasonJobNotFound) {
      if (relay_) relay_->Forget(id);
      deps_.hub->Finish(id, store::JobStatus::kError, "");
    }
    return;
  }
  if (store::IsTerminal(rec->status)) {
    if (relay_) relay_->Forget(id);
    deps_.hub->Finish(id, rec->status, std::move(rec->result_json));
  } else if (rec->status == store::JobStatus::kRunning) {
    // Shown running first, then its live output is asked for.
    ch->PublishStatus(store::JobStatus::kRunning);
    if (relay_) relay_->Watch(id);
  }
}

void JobService::OnNotice(const store::JobNotice& notice) {
  if (!claims_) return;
  switch (notice.kind) {
    case store::JobNotice::Kind::kQueued:
      claims_->Kick();
      break;
    case store::JobNotice::Kind::kCancel:
      if (executor_.Active().count(notice.job_id) > 0) {
        if (auto ch = deps_.hub->Find(notice.job_id)) ch->cancel_token().Cancel();
      }
      break;
    case store::JobNotice::Kind::kChanged:
      Refresh(notice.job_id);
      break;
    case store::JobNotice::Kind::kWatch:
      if (relay_) relay_->OnWatch(notice.job_id);
      break;
    case store::JobNotice::Kind::kOutput:
      if (relay_) relay_->OnOutput(notice);
      break;
  }
}

void JobService::OnResync() {
  if (!claims_) return;
  for (const auto& id : deps_.hub->Ids()) Refresh(id);
  claims_->Kick();
}

Status JobService::InsertInFleet(const store::JobRecord& rec, const config::TierConfig* tier,
                                 size_t batch_hits) {
  store::QueueBounds bounds;
  bounds.tenant_max = tier != nullptr ? tier->max_queued : 0;
  bounds.tenant_extra = static_cast<int64_t>(batch_hits);
  bounds.total_max = deps_.config->jobs.max_queued;
  Status inserted = bounded_->InsertWithin(rec, bounds);
  if (inserted.reason() == store::kReasonTierQueueFull && tier != nullptr) {
    return TierQueueFull(*tier);
  }
  if (inserted.reason() == store::kReasonQueueFull) {
    return QueueFull(static_cast<size_t>(deps_.config->jobs.max_queued));
  }
  return inserted;
}

}  // namespace coderunner::jobs
