// FleetDispatch (fleet_dispatch.h): the store is the queue that the nodes
// share; notices tell the other nodes to look again.
#include "coderunner/fleet/fleet_dispatch.h"

#include <spdlog/spdlog.h>

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "claim_loop.h"
#include "coderunner/isolation/workspace.h"
#include "coderunner/jobs/job_clock.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/queue_admission.h"
#include "coderunner/jobs/recovery.h"
#include "coderunner/jobs/worker_pool.h"
#include "coderunner/wire/job_json.h"
#include "output_relay.h"

namespace coderunner::fleet {
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
                                jobs::NowMs(), result, "", node);
    if (!s.ok()) continue;  // Taken elsewhere meanwhile (lease expired).
    requeued += last ? 0 : 1;
    if (notices != nullptr) (void)notices->Publish({store::JobNotice::Kind::kChanged, rec.id});
  }
  return requeued;
}

class FleetNode : public FleetDispatch {
 public:
  explicit FleetNode(FleetDispatchDeps deps);

  void Attach(const jobs::JobExecutor* executor, const jobs::TenantFootprint*) override {
    executor_ = executor;
    claims_ = std::make_unique<ClaimLoop>(
        ClaimLoopDeps{deps_.config, deps_.store, deps_.queue, deps_.hub, executor, deps_.notices,
                      deps_.config->instance, jobs::WorkerThreads(*deps_.config)});
  }
  std::string fence_node() const override { return deps_.config->instance; }
  store::JobNotices* executor_notices() override {
    return relay_ ? relay_->executor_notices() : deps_.notices;
  }

  Status Recover() override;
  void Started() override { claims_->Start(); }
  Status RecoverInterrupted() override;

  Status Reserve(const std::string& tenant, const config::TierConfig* tier,
                 size_t batch_hits) override;
  Status Commit(const store::JobRecord& rec, const config::TierConfig* tier,
                size_t batch_hits) override;
  void Unreserve() override {
    if (deps_.bounded == nullptr) deps_.queue->Release(1);
  }
  void Dispatch(const store::JobRecord& rec, const config::TierConfig* tier) override;

  void Released(const std::string& id) override { claims_->Release(id); }
  void Cancelled(const store::JobRecord& rec) override;
  std::shared_ptr<jobs::JobChannel> Follow(const std::string& id) override;

  void StopTaking() override { claims_->Stop(); }
  void GiveBack(const std::vector<std::string>& dropped) override;
  void Stop() override {
    claims_->Stop();
    if (relay_) relay_->Stop();
  }

  void OnNotice(const store::JobNotice& notice) override;
  void OnResync() override;

 private:
  bool RunsHere(const std::string& id) const {
    return executor_ != nullptr && executor_->Active().count(id) > 0;
  }
  // kChanged for job `id`: re-reads it unless it runs here (see OnNotice).
  void Refresh(const std::string& id);
  // Tells the fleet (deps.notices, if any).
  void Publish(store::JobNotice::Kind kind, const std::string& id);

  const FleetDispatchDeps deps_;
  const jobs::JobExecutor* executor_ = nullptr;
  // Live output to and from the other nodes (with notices only).
  std::unique_ptr<OutputRelay> relay_;
  std::unique_ptr<ClaimLoop> claims_;  // From Attach on.
  std::mutex recovery_mu_;
  // This node's running jobs as it started (Recover), requeued once the
  // orphan sweep removed their containers (RecoverInterrupted).
  std::vector<store::JobRecord> own_;
};

FleetNode::FleetNode(FleetDispatchDeps deps)
    : deps_(deps),
      relay_(deps.notices != nullptr ? std::make_unique<OutputRelay>(OutputRelayDeps{
                                           deps.hub, deps.notices,
                                           [this](const std::string& id) { return RunsHere(id); }})
                                     : nullptr) {}

Status FleetNode::Recover() {
  // Queued jobs are the claim loop's. Running jobs of this node (a restart
  // of the same instance) lost their runs: once the orphan sweep removed
  // their containers they are requeued (RequeueOwnRunning). Other nodes'
  // running jobs are left to their leases.
  std::lock_guard<std::mutex> lock(recovery_mu_);
  CR_ASSIGN_OR_RETURN(own_, OwnRunning(*deps_.store, deps_.config->instance));
  return OkStatus();
}

Status FleetNode::RecoverInterrupted() {
  std::lock_guard<std::mutex> lock(recovery_mu_);
  jobs::RecoveryReport report;
  std::vector<store::JobRecord> none;
  CR_RETURN_IF_ERROR(jobs::RecoverInterrupted(
      jobs::RecoveryDeps{deps_.config, deps_.store, deps_.queue, deps_.hub, deps_.containers,
                         deps_.pool},
      none, [this] { return executor_->Active(); }, &report));
  if (RequeueOwnRunning(*deps_.store, own_, executor_->Active(), deps_.config->instance,
                        deps_.config->workspace_dir, deps_.config->store.max_attempts,
                        deps_.notices) > 0) {
    Publish(store::JobNotice::Kind::kQueued, "");
    claims_->Kick();
  }
  own_.clear();
  return OkStatus();
}

Status FleetNode::Reserve(const std::string& tenant, const config::TierConfig* tier,
                          size_t batch_hits) {
  // With fleet-wide bounds they are counted in the store, with the insert.
  if (deps_.bounded != nullptr) return OkStatus();
  return jobs::ReserveQueueSlot(*deps_.queue, *deps_.metrics, tenant, tier, batch_hits);
}

Status FleetNode::Commit(const store::JobRecord& rec, const config::TierConfig* tier,
                         size_t batch_hits) {
  if (deps_.bounded == nullptr) return jobs::InsertReserved(*deps_.store, *deps_.queue, rec);
  store::QueueBounds bounds;
  bounds.tenant_max = tier != nullptr ? tier->max_queued : 0;
  bounds.tenant_extra = static_cast<int64_t>(batch_hits);
  bounds.total_max = deps_.config->jobs.max_queued;
  Status inserted = deps_.bounded->InsertWithin(rec, bounds);
  if (inserted.reason() == store::kReasonTierQueueFull && tier != nullptr) {
    return jobs::TierQueueFull(*deps_.metrics, *tier);
  }
  if (inserted.reason() == store::kReasonQueueFull) {
    return jobs::QueueFull(*deps_.metrics, static_cast<size_t>(deps_.config->jobs.max_queued));
  }
  return inserted;
}

void FleetNode::Dispatch(const store::JobRecord&, const config::TierConfig*) {
  // The store is the queue; whichever node has a free slot claims it (this
  // one first, woken now).
  if (deps_.bounded == nullptr) deps_.queue->Release(1);
  claims_->Kick();
  Publish(store::JobNotice::Kind::kQueued, "");
}

void FleetNode::Publish(store::JobNotice::Kind kind, const std::string& id) {
  if (deps_.notices == nullptr) return;
  Status s = deps_.notices->Publish(store::JobNotice{kind, id});
  if (!s.ok()) spdlog::warn("job {}: cannot tell the fleet: {}", id, s.ToString());
}

void FleetNode::GiveBack(const std::vector<std::string>& dropped) {
  int requeued = 0;
  for (const auto& id : dropped) {
    claims_->Release(id);
    Status s = deps_.store->Transition(id, store::JobStatus::kQueued, jobs::NowMs(), "", "",
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

void FleetNode::Cancelled(const store::JobRecord& rec) {
  const std::string& id = rec.id;
  if (deps_.queue->Remove(id)) claims_->Release(id);
  const bool runs_here = RunsHere(id);
  if (runs_here) {
    if (auto ch = deps_.hub->Find(id)) ch->cancel_token().Cancel();
  } else {
    Publish(store::JobNotice::Kind::kCancel, id);
    if (relay_) relay_->Forget(id);
    deps_.hub->Finish(id, store::JobStatus::kCancelled, "");
  }
  Publish(store::JobNotice::Kind::kChanged, id);
}

std::shared_ptr<jobs::JobChannel> FleetNode::Follow(const std::string& id) {
  if (auto ch = deps_.hub->Find(id)) return ch;
  auto rec = deps_.store->Get(id);
  if (!rec.ok() || store::IsTerminal(rec->status)) return nullptr;
  // Opened before the read in Refresh: a notice that came before the open
  // is made good by that read.
  deps_.hub->Open(id, deps_.config->max_limits.output_bytes);
  Refresh(id);
  return deps_.hub->Find(id);
}

void FleetNode::Refresh(const std::string& id) {
  std::shared_ptr<jobs::JobChannel> ch = deps_.hub->Find(id);
  if (!ch || RunsHere(id)) return;
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

void FleetNode::OnNotice(const store::JobNotice& notice) {
  switch (notice.kind) {
    case store::JobNotice::Kind::kQueued:
      claims_->Kick();
      break;
    case store::JobNotice::Kind::kCancel:
      if (RunsHere(notice.job_id)) {
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

void FleetNode::OnResync() {
  for (const auto& id : deps_.hub->Ids()) Refresh(id);
  claims_->Kick();
}

}  // namespace

std::unique_ptr<FleetDispatch> NewFleetDispatch(FleetDispatchDeps deps) {
  return std::make_unique<FleetNode>(deps);
}

}  // namespace coderunner::fleet
