// JobExecutor's checks of what this node may run, and with which cancel
// token, in fleet mode.
#include <spdlog/spdlog.h>

#include "coderunner/jobs/job_executor.h"

namespace coderunner::jobs {

bool JobExecutor::OwnedHere(const store::JobRecord& record) const {
  return deps_.node.empty() ||
         (record.status == store::JobStatus::kRunning && record.owner == deps_.node);
}

void JobExecutor::RenewStaleCancel(const store::JobRecord& record) {
  if (deps_.node.empty()) return;
  std::shared_ptr<JobChannel> ch = deps_.hub->Find(record.id);
  if (!ch || !ch->cancel_token().cancelled()) return;
  StatusOr<store::JobRecord> now = deps_.store->Get(record.id);
  if (!now.ok() || !OwnedHere(*now) || now->attempt != record.attempt) return;
  spdlog::info(
      "job {}: attempt {} starts with the token an earlier attempt's lost lease cancelled; "
      "renewed",
      record.id, record.attempt);
  ch->cancel_token().Renew();
}

}  // namespace coderunner::jobs
