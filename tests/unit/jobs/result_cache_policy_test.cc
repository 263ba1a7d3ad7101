#include "jobs/result_cache_policy.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace coderunner::jobs {
namespace {

// A run the program ended on its own, as coderunner-init reported it.
isolation::RunResult ProgramEnded(isolation::RunStatus status, int exit_code) {
  isolation::RunResult r;
  r.status = status;
  r.exit_code = exit_code;
  r.reported_by_init = true;
  r.image_digest = "sha256:" + std::string(64, 'a');
  return r;
}

TEST(ResultCachePolicyTest, OnlyResultsTheProgramDeterminedAreCached) {
  struct Case {
    const char* name;
    store::JobStatus status;
    std::function<void(isolation::RunResult&)> shape;
    bool cached;
  };
  auto none = [](isolation::RunResult&) {};
  const std::vector<Case> cases = {
      {"succeeded", store::JobStatus::kSucceeded, none, true},
      {"failed with an exit code", store::JobStatus::kFailed, none, true},
      {"failed on a signal it raised", store::JobStatus::kFailed,
       [](isolation::RunResult& r) { r.signal = 6; }, true},
      {"timeout", store::JobStatus::kTimeout, none, false},
      {"oom", store::JobStatus::kOom, none, false},
      {"cancelled (a caller, or a shutdown that re-queues)", store::JobStatus::kCancelled, none,
       false},
      {"error", store::JobStatus::kError, none, false},
      {"queued", store::JobStatus::kQueued, none, false},
      {"running", store::JobStatus::kRunning, none, false},
      {"engine failure (no trailer)", store::JobStatus::kError,
       [](isolation::RunResult& r) {
         r.reported_by_init = false;
         r.error = UnavailableError("engine went away", "engine_unavailable");
       },
       false},
      {"policy_not_applied start error", store::JobStatus::kError,
       [](isolation::RunResult& r) {
         r.error = FailedPreconditionError("refused", "policy_not_applied");
       },
       false},
      {"job_start_failed start error", store::JobStatus::kError,
       [](isolation::RunResult& r) { r.error = InternalError("exec failed", "job_start_failed"); },
       false},
      {"failed, but only the engine saw the end (container killed from outside)",
       store::JobStatus::kFailed, [](isolation::RunResult& r) { r.reported_by_init = false; },
       false},
      {"succeeded, but only the engine saw the end", store::JobStatus::kSucceeded,
       [](isolation::RunResult& r) { r.reported_by_init = false; }, false},
      {"failed on an /output bound of the service's config", store::JobStatus::kFailed,
       [](isolation::RunResult& r) {
         r.error = FailedPreconditionError("too big", "artifacts_too_large");
       },
       false},
      {"left artifacts", store::JobStatus::kSucceeded,
       [](isolation::RunResult& r) {
         r.artifacts.push_back({"out.txt", 3, "abc"});
       },
       false},
      {"left entries in /output that were skipped", store::JobStatus::kSucceeded,
       [](isolation::RunResult& r) {
         r.artifacts_skipped.push_back({"link", "symlink"});
       },
       false},
      {"truncated output is still the program's", store::JobStatus::kSucceeded,
       [](isolation::RunResult& r) { r.stdout_truncated = true; }, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    isolation::RunResult r =
        ProgramEnded(c.status == store::JobStatus::kSucceeded ? isolation::RunStatus::kSucceeded
                                                              : isolation::RunStatus::kFailed,
                     c.status == store::JobStatus::kSucceeded ? 0 : 1);
    c.shape(r);
    EXPECT_EQ(MayCacheResult(c.status, r), c.cached);
  }
}

TEST(ResultCachePolicyTest, CacheableStatuses) {
  struct Case {
    store::JobStatus status;
    bool cacheable;
  };
  for (const Case& c : std::vector<Case>{{store::JobStatus::kSucceeded, true},
                                         {store::JobStatus::kFailed, true},
                                         {store::JobStatus::kTimeout, false},
                                         {store::JobStatus::kOom, false},
                                         {store::JobStatus::kCancelled, false},
                                         {store::JobStatus::kError, false},
                                         {store::JobStatus::kQueued, false},
                                         {store::JobStatus::kRunning, false}}) {
    SCOPED_TRACE(std::string(store::JobStatusName(c.status)));
    EXPECT_EQ(IsCacheableStatus(c.status), c.cacheable);
  }
}

}  // namespace
}  // namespace coderunner::jobs
