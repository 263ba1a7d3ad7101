// JobService's own admission checks (job_service.h: Draining, RoomOnDisk),
// each refusal counted in coderunner_jobs_rejected_total; the queue's
// bounds are the dispatch's.
#include <string>

#include "coderunner/common/disk_room.h"
#include "job_service_impl.h"

namespace coderunner::jobs {

Status JobServiceImpl::Draining() {
  if (!draining_) return OkStatus();
  deps_.metrics->Increment("coderunner_jobs_rejected_total", {{"reason", "shutting_down"}});
  return UnavailableError("the service is shutting down; retry against another instance or later",
                          "shutting_down");
}

Status JobServiceImpl::RoomOnDisk() {
  Status room = CheckDiskRoom(deps_.config->JobWriteDirs(), deps_.config->jobs.disk_reserve_bytes);
  if (!room.ok()) {
    deps_.metrics->Increment("coderunner_jobs_rejected_total", {{"reason", kReasonDiskFull}});
  }
  return room;
}

}  // namespace coderunner::jobs
