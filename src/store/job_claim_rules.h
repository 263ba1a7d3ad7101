// The rules of leased claims every JobStore backend shares, apart from its
// SQL and locking: argument bounds, what a claim writes, and what an
// expired lease becomes (see JobStore::Claim, RenewLeases,
// RequeueExpired). Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_JOB_CLAIM_RULES_H_
#define CODERUNNER_SRC_STORE_JOB_CLAIM_RULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"
#include "coderunner/store/job_store.h"
#include "job_transition_rules.h"

namespace coderunner::store {

// Claim's arguments: `node` non-empty, `max` 1..kMaxClaimJobs, `lease_ms`
// 1..kMaxLeaseMs. Else InvalidArgument ("invalid_claim").
Status CheckClaimArgs(const std::string& node, int max, int64_t lease_ms);
// RenewLeases's: `node` non-empty, `lease_ms` 1..kMaxLeaseMs.
Status CheckRenewArgs(const std::string& node, int64_t lease_ms);
// RequeueExpired's: `max_attempts` >= 1.
Status CheckRequeueArgs(int max_attempts);

// What Transition would read of `job` (a whole record, as selected).
StoredJob StoredJobOf(const store::JobRecord& job);

// The update that claims queued `job` for `node` at `now_ms` until
// `lease_until_ms` (a move to running that also sets owner and lease);
// failures as PlanTransition. Applies the same move to `job`, which then
// reads as the stored row will.
StatusOr<TransitionUpdate> PlanClaim(store::JobRecord& job, const std::string& node, int64_t now_ms,
                                     int64_t lease_until_ms);

// Where a job whose lease expired goes: queued while its attempt is below
// `max_attempts`, else error.
store::JobStatus ExpiredLeaseTarget(const store::JobRecord& job, int max_attempts);

// Records `id` under `to` (queued: requeued; else ended) in `out`.
void RecordExpired(ExpiredLeases& out, const std::string& id, store::JobStatus to);

// `ids` without repeats, first occurrence kept.
std::vector<std::string> UniqueIds(const std::vector<std::string>& ids);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_JOB_CLAIM_RULES_H_
