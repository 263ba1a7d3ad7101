// JobService's admission (job_service.h: CheckAdmission and its parts):
// the bounds every accepted job meets on the single-node path, each
// refusal counted in coderunner_jobs_rejected_total.
#include <string>

#include "coderunner/common/disk_room.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/store/queue_bounds.h"

namespace coderunner::jobs {

Status JobService::CheckAdmission(const std::string& tenant, const config::TierConfig* tier,
                                  size_t batch_hits) {
  CR_RETURN_IF_ERROR(Draining());
  if (tier != nullptr &&
      deps_.queue->TenantQueued(tenant) + batch_hits >= static_cast<size_t>(tier->max_queued)) {
    return TierQueueFull(*tier);
  }
  if (!deps_.queue->Reserve(1)) return QueueFull(deps_.queue->capacity());
  return OkStatus();
}

Status JobService::Draining() {
  if (!draining_) return OkStatus();
  deps_.metrics->Increment("coderunner_jobs_rejected_total", {{"reason", "shutting_down"}});
  return UnavailableError("the service is shutting down; retry against another instance or later",
                          "shutting_down");
}

Status JobService::RoomOnDisk() {
  Status room = CheckDiskRoom(deps_.config->JobWriteDirs(), deps_.config->jobs.disk_reserve_bytes);
  if (!room.ok()) {
    deps_.metrics->Increment("coderunner_jobs_rejected_total", {{"reason", kReasonDiskFull}});
  }
  return room;
}

Status JobService::TierQueueFull(const config::TierConfig& tier) {
  deps_.metrics->Increment("coderunner_jobs_rejected_total",
                           {{"reason", store::kReasonTierQueueFull}});
  return ResourceExhaustedError("tier " + tier.name + " allows " + std::to_string(tier.max_queued) +
                                    " queued jobs per tenant (max_queued); retry later",
                                store::kReasonTierQueueFull);
}

Status JobService::QueueFull(size_t capacity) {
  deps_.metrics->Increment("coderunner_jobs_rejected_total", {{"reason", store::kReasonQueueFull}});
  return ResourceExhaustedError(
      "the job queue is full (" + std::to_string(capacity) + " jobs waiting); retry later",
      store::kReasonQueueFull);
}

}  // namespace coderunner::jobs
