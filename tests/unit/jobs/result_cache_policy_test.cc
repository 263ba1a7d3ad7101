#include "coderunner/jobs/result_cache_policy.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace coderunner::jobs {
namespace {

// A run the program ended on its own, as coderunner-init reported it.
sandbox::RunResult ProgramEnded(sandbox::RunStatus status, int exit_code) {
  sandbox::RunResult r;
  r.status = status;
  r.exit_code = exit_code;
  r.reported_by_init = true;
  r.image_digest = "sha256:" + std::string(64, 'a');
  return r;
}

TEST(ResultCachePolicyTest, OnlyResultsTheProgramDeterminedAreCached) {
  struct Case {
    const char* name;
    JobStatus status;
    std::function<void(sandbox::RunResult&)> shape;
    bool cached;
  };
  auto none = [](sandbox::RunResult&) {};
  const std::vector<Case> cases = {
      {"succeeded", JobStatus::kSucceeded, none, true},
      {"failed with an exit code", JobStatus::kFailed, none, true},
      {"failed on a signal it raised", JobStatus::kFailed,
       [](sandbox::RunResult& r) { r.signal = 6; }, true},
      {"timeout", JobStatus::kTimeout, none, false},
      {"oom", JobStatus::kOom, none, false},
      {"cancelled (a caller, or a shutdown that re-queues)", JobStatus::kCancelled, none, false},
      {"error", JobStatus::kError, none, false},
      {"queued", JobStatus::kQueued, none, false},
      {"running", JobStatus::kRunning, none, false},
      {"engine failure (no trailer)", JobStatus::kError,
       [](sandbox::RunResult& r) {
         r.reported_by_init = false;
         r.error = UnavailableError("engine went away", "engine_unavailable");
       },
       false},
      {"policy_not_applied start error", JobStatus::kError,
       [](sandbox::RunResult& r) {
         r.error = FailedPreconditionError("refused", "policy_not_applied");
       },
       false},
      {"job_start_failed start error", JobStatus::kError,
       [](sandbox::RunResult& r) { r.error = InternalError("exec failed", "job_start_failed"); },
       false},
      {"failed, but only the engine saw the end (container killed from outside)",
       JobStatus::kFailed, [](sandbox::RunResult& r) { r.reported_by_init = false; }, false},
      {"succeeded, but only the engine saw the end", JobStatus::kSucceeded,
       [](sandbox::RunResult& r) { r.reported_by_init = false; }, false},
      {"failed on an /output bound of the service's config", JobStatus::kFailed,
       [](sandbox::RunResult& r) {
         r.error = FailedPreconditionError("too big", "artifacts_too_large");
       },
       false},
      {"left artifacts", JobStatus::kSucceeded,
       [](sandbox::RunResult& r) {
         r.artifacts.push_back({"out.txt", 3, "abc"});
       },
       false},
      {"left entries in /output that were skipped", JobStatus::kSucceeded,
       [](sandbox::RunResult& r) {
         r.artifacts_skipped.push_back({"link", "symlink"});
       },
       false},
      {"truncated output is still the program's", JobStatus::kSucceeded,
       [](sandbox::RunResult& r) { r.stdout_truncated = true; }, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    sandbox::RunResult r =
        ProgramEnded(c.status == JobStatus::kSucceeded ? sandbox::RunStatus::kSucceeded
                                                       : sandbox::RunStatus::kFailed,
                     c.status == JobStatus::kSucceeded ? 0 : 1);
    c.shape(r);
    EXPECT_EQ(MayCacheResult(c.status, r), c.cached);
  }
}

TEST(ResultCachePolicyTest, CacheableStatuses) {
  struct Case {
    JobStatus status;
    bool cacheable;
  };
  for (const Case& c : std::vector<Case>{{JobStatus::kSucceeded, true},
                                         {JobStatus::kFailed, true},
                                         {JobStatus::kTimeout, false},
                                         {JobStatus::kOom, false},
                                         {JobStatus::kCancelled, false},
                                         {JobStatus::kError, false},
                                         {JobStatus::kQueued, false},
                                         {JobStatus::kRunning, false}}) {
    SCOPED_TRACE(std::string(JobStatusName(c.status)));
    EXPECT_EQ(IsCacheableStatus(c.status), c.cacheable);
  }
}

}  // namespace
}  // namespace coderunner::jobs
