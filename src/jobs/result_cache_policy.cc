#include "result_cache_policy.h"

namespace coderunner::jobs {

bool IsCacheableStatus(store::JobStatus status) {
  return status == store::JobStatus::kSucceeded || status == store::JobStatus::kFailed;
}

bool MayCacheResult(store::JobStatus status, const isolation::RunResult& result) {
  return IsCacheableStatus(status) && result.reported_by_init && result.error.ok() &&
         result.artifacts.empty() && result.artifacts_skipped.empty();
}

}  // namespace coderunner::jobs
