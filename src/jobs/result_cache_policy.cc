#include "coderunner/jobs/result_cache_policy.h"

namespace coderunner::jobs {

bool IsCacheableStatus(JobStatus status) {
  return status == JobStatus::kSucceeded || status == JobStatus::kFailed;
}

bool MayCacheResult(JobStatus status, const sandbox::RunResult& result) {
  return IsCacheableStatus(status) && result.reported_by_init && result.error.ok() &&
         result.artifacts.empty() && result.artifacts_skipped.empty();
}

}  // namespace coderunner::jobs
