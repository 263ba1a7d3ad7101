// ResultCachePolicy: which results may answer later requests from the
// result cache.
//
// The cache answers a tenant's request with the result of an earlier run of
// the same tenant's same code, inputs, limits and image (CacheKey). A
// cached result stands for what the program does, so only a result the
// program itself determined may be kept: never one the service or the
// engine caused (an engine failure, a start error such as
// policy_not_applied or job_start_failed, a cancel, a shutdown that stopped
// the job, a bound of the service's own configuration), and never one whose
// end only the engine saw. What a program does that varies from run to run
// (a random value, the time) is its own tenant's business: the cache is
// per tenant.
#ifndef CODERUNNER_JOBS_RESULT_CACHE_POLICY_H_
#define CODERUNNER_JOBS_RESULT_CACHE_POLICY_H_

#include "coderunner/isolation/job_spec.h"
#include "coderunner/store/job_record.h"

namespace coderunner::jobs {

// True for the statuses a cached result may have: succeeded and failed.
// Not timeout and oom: a wall-clock deadline and memory pressure depend on
// the host's load as much as on the program. Not error or cancelled: those
// are the service's or the caller's doing. Pure.
bool IsCacheableStatus(store::JobStatus status);

// True if the finished run `result`, committed with `status`, may be stored
// in the result cache: a cacheable status, the end reported by
// coderunner-init (result.reported_by_init), no error (result.error OK: not
// an /output bound, whose caps are the service's configuration), and
// nothing in /output (artifacts live under the job that made them, so an
// answer naming them would point at another job's files). Pure.
bool MayCacheResult(store::JobStatus status, const isolation::RunResult& result);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_RESULT_CACHE_POLICY_H_
