#include "job_claim_rules.h"

#include <string>
#include <unordered_set>
#include <vector>

namespace coderunner::store {

using store::JobRecord;
using store::JobStatus;

namespace {

Status CheckNodeAndLease(const std::string& node, int64_t lease_ms) {
  if (node.empty()) return InvalidArgumentError("a claim needs a node name", kReasonInvalidClaim);
  if (lease_ms < 1 || lease_ms > kMaxLeaseMs) {
    return InvalidArgumentError("lease_ms must be 1.." + std::to_string(kMaxLeaseMs),
                                kReasonInvalidClaim);
  }
  return OkStatus();
}

}  // namespace

Status CheckClaimArgs(const std::string& node, int max, int64_t lease_ms) {
  if (max < 1 || max > kMaxClaimJobs) {
    return InvalidArgumentError("a claim takes 1.." + std::to_string(kMaxClaimJobs) + " jobs",
                                kReasonInvalidClaim);
  }
  return CheckNodeAndLease(node, lease_ms);
}

Status CheckRenewArgs(const std::string& node, int64_t lease_ms) {
  return CheckNodeAndLease(node, lease_ms);
}

Status CheckRequeueArgs(int max_attempts) {
  if (max_attempts < 1) {
    return InvalidArgumentError("max_attempts must be >= 1", kReasonInvalidClaim);
  }
  return OkStatus();
}

StoredJob StoredJobOf(const JobRecord& job) {
  return StoredJob{job.transitions, job.request_json, job.callback_url,
                   static_cast<int64_t>(job.progress_json.size())};
}

StatusOr<TransitionUpdate> PlanClaim(JobRecord& job, const std::string& node, int64_t now_ms,
                                     int64_t lease_until_ms) {
  CR_ASSIGN_OR_RETURN(TransitionUpdate plan,
                      PlanTransition(StoredJobOf(job), JobStatus::kRunning, now_ms));
  plan.sets_owner = true;
  plan.owner = node;
  plan.lease_expires_at_ms = lease_until_ms;
  job.status = JobStatus::kRunning;
  job.started_at_ms = now_ms;
  job.transitions.push_back({JobStatus::kRunning, now_ms});
  job.owner = node;
  job.lease_expires_at_ms = lease_until_ms;
  return plan;
}

JobStatus ExpiredLeaseTarget(const JobRecord& job, int max_attempts) {
  return job.attempt < max_attempts ? JobStatus::kQueued : JobStatus::kError;
}

void RecordExpired(ExpiredLeases& out, const std::string& id, JobStatus to) {
  (to == JobStatus::kQueued ? out.requeued : out.ended).push_back(id);
}

std::vector<std::string> UniqueIds(const std::vector<std::string>& ids) {
  std::unordered_set<std::string> seen;
  std::vector<std::string> unique;
  unique.reserve(ids.size());
  for (const std::string& id : ids) {
    if (seen.insert(id).second) unique.push_back(id);
  }
  return unique;
}

}  // namespace coderunner::store
