#include "coderunner/jobs/queue_admission.h"

#include "coderunner/store/queue_bounds.h"

namespace coderunner::jobs {

Status TierQueueFull(MetricsRegistry& metrics, const config::TierConfig& tier) {
  metrics.Increment("coderunner_jobs_rejected_total", {{"reason", store::kReasonTierQueueFull}});
  return ResourceExhaustedError("tier " + tier.name + " allows " + std::to_string(tier.max_queued) +
                                    " queued jobs per tenant (max_queued); retry later",
                                store::kReasonTierQueueFull);
}

Status QueueFull(MetricsRegistry& metrics, size_t capacity) {
  metrics.Increment("coderunner_jobs_rejected_total", {{"reason", store::kReasonQueueFull}});
  return ResourceExhaustedError(
      "the job queue is full (" + std::to_string(capacity) + " jobs waiting); retry later",
      store::kReasonQueueFull);
}

Status ReserveQueueSlot(JobQueue& queue, MetricsRegistry& metrics, const std::string& tenant,
                        const config::TierConfig* tier, size_t batch_hits) {
  if (tier != nullptr &&
      queue.TenantQueued(tenant) + batch_hits >= static_cast<size_t>(tier->max_queued)) {
    return TierQueueFull(metrics, *tier);
  }
  if (!queue.Reserve(1)) return QueueFull(metrics, queue.capacity());
  return OkStatus();
}

Status InsertReserved(store::JobStore& store, JobQueue& queue, const store::JobRecord& rec) {
  Status inserted = store.Insert({rec});
  if (!inserted.ok() && !store::IsTerminal(rec.status)) queue.Release(1);
  return inserted;
}

}  // namespace coderunner::jobs
