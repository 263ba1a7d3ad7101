#include "local_dispatch.h"

#include <spdlog/spdlog.h>

#include <mutex>

#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/queue_admission.h"
#include "coderunner/jobs/recovery.h"

namespace coderunner::jobs {
namespace {

class LocalDispatch : public JobDispatch {
 public:
  explicit LocalDispatch(LocalDispatchDeps deps) : deps_(deps) {}

  void Attach(const JobExecutor* executor, const TenantFootprint* footprint) override {
    executor_ = executor;
    footprint_ = footprint;
  }
  std::string fence_node() const override { return ""; }
  store::JobNotices* executor_notices() override { return nullptr; }

  Status Recover() override {
    std::lock_guard<std::mutex> lock(mu_);
    CR_ASSIGN_OR_RETURN(interrupted_, RecoverQueued(RecoveryDepsOf(), &report_));
    return OkStatus();
  }
  void Started() override {}
  Status RecoverInterrupted() override;

  Status Reserve(const std::string& tenant, const config::TierConfig* tier,
                 size_t batch_hits) override {
    return ReserveQueueSlot(*deps_.queue, *deps_.metrics, tenant, tier, batch_hits);
  }
  Status Commit(const store::JobRecord& rec, const config::TierConfig*, size_t) override {
    return InsertReserved(*deps_.store, *deps_.queue, rec);
  }
  void Unreserve() override { deps_.queue->Release(1); }
  void Dispatch(const store::JobRecord& rec, const config::TierConfig* tier) override {
    deps_.queue->PushReserved(rec.tenant, rec.id, tier != nullptr ? tier->max_concurrent : 0);
    deps_.metrics->Set("coderunner_queue_depth", {}, static_cast<double>(deps_.queue->size()));
  }

  void Released(const std::string&) override {}
  void Cancelled(const store::JobRecord& rec) override {
    // Queued: it leaves the queue now. Running: the runner kills its
    // container and the worker moves on at once.
    deps_.queue->Remove(rec.id);
    deps_.metrics->Set("coderunner_queue_depth", {}, static_cast<double>(deps_.queue->size()));
    if (auto ch = deps_.hub->Find(rec.id)) ch->cancel_token().Cancel();
    if (rec.status == store::JobStatus::kQueued) {
      deps_.hub->Finish(rec.id, store::JobStatus::kCancelled, "");
    }
  }
  std::shared_ptr<JobChannel> Follow(const std::string& id) override { return deps_.hub->Find(id); }

  void StopTaking() override {}
  void GiveBack(const std::vector<std::string>&) override {}
  void Stop() override {}

 private:
  RecoveryDeps RecoveryDepsOf() const {
    return RecoveryDeps{deps_.config,     deps_.store, deps_.queue, deps_.hub,
                        deps_.containers, deps_.pool,  footprint_};
  }

  const LocalDispatchDeps deps_;
  const JobExecutor* executor_ = nullptr;
  const TenantFootprint* footprint_ = nullptr;
  std::mutex mu_;  // Guards the recovery state below (the two phases' threads).
  std::vector<store::JobRecord> interrupted_;
  RecoveryReport report_;
};

Status LocalDispatch::RecoverInterrupted() {
  std::lock_guard<std::mutex> lock(mu_);
  CR_RETURN_IF_ERROR(jobs::RecoverInterrupted(
      RecoveryDepsOf(), interrupted_, [this] { return executor_->Active(); }, &report_));
  spdlog::info(
      "recovery: {} queued, {} finished while down, {} re-queued, {} interrupted, {} orphan "
      "containers removed",
      report_.requeued_queued, report_.recovered_finished, report_.requeued_running,
      report_.interrupted, report_.orphans_removed);
  return OkStatus();
}

}  // namespace

std::unique_ptr<JobDispatch> NewLocalDispatch(LocalDispatchDeps deps) {
  return std::make_unique<LocalDispatch>(deps);
}

}  // namespace coderunner::jobs
