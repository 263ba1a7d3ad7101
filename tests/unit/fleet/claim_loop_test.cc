// ClaimLoop::ClaimFree claims for all of its free worker slots in one
// JobStore::Claim call (the queue's ceiling is round trips: one claim of
// 8 does what eight claims of 1 do). A store wrapper counts the calls and
// the batch each asked for; the jobs are real rows of a SQLite store.
#include "fleet/claim_loop.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "unit/jobs/forwarding_store.h"

namespace coderunner::jobs {
namespace {

using fleet::ClaimLoop;
using fleet::ClaimLoopDeps;

using store::JobRecord;
using store::JobStatus;

// Forwards every call to `inner`, recording the `max` of each Claim.
class CountingStore : public testutil::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  std::vector<int> claims() const {
    std::lock_guard<std::mutex> lock(mu_);
    return claims_;
  }

  StatusOr<std::vector<JobRecord>> Claim(const std::string& node, int max, int64_t now_ms,
                                         int64_t lease_ms) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      claims_.push_back(max);
    }
    return inner_.Claim(node, max, now_ms, lease_ms);
  }

 private:
  mutable std::mutex mu_;
  std::vector<int> claims_;
};

struct BatchCase {
  const char* name;
  int slots;              // Worker slots of the node.
  int queued;             // Jobs in the store.
  int rounds;             // ClaimFree calls, none released in between.
  int want_claimed;       // Jobs held after them.
  std::vector<int> want;  // The max of each Claim call made.
};

class ClaimLoopTest : public ::testing::TestWithParam<BatchCase> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/claim-loop-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto opened = store::SqliteJobStore::Open(dir_ + "/jobs.db");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    inner_ = std::move(*opened);
  }
  void TearDown() override {
    inner_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::unique_ptr<store::SqliteJobStore> inner_;
};

TEST_P(ClaimLoopTest, ClaimsForEveryFreeSlotInOneCall) {
  const BatchCase& c = GetParam();
  std::vector<JobRecord> jobs;
  for (int i = 0; i < c.queued; ++i) {
    JobRecord job;
    job.id = "job-" + std::to_string(1000 + i);
    job.tenant = "acme";
    job.language = "python";
    job.created_at_ms = 100 + i;
    job.transitions = {{JobStatus::kQueued, 100 + i}};
    jobs.push_back(job);
  }
  ASSERT_TRUE(inner_->Insert(jobs).ok());
  CountingStore counting(*inner_);
  config::Config config;
  JobQueue queue(1000);
  JobHub hub;
  ClaimLoopDeps deps;
  deps.config = &config;
  deps.store = &counting;
  deps.queue = &queue;
  deps.hub = &hub;
  deps.node = "node-a";
  deps.slots = c.slots;
  ClaimLoop loop(deps);  // Not started: the test drives ClaimFree.
  int claimed = 0;
  for (int round = 0; round < c.rounds; ++round) claimed += loop.ClaimFree(1000 + round);

  EXPECT_EQ(claimed, c.want_claimed);
  EXPECT_EQ(counting.claims(), c.want);
  EXPECT_EQ(loop.Held().size(), static_cast<size_t>(c.want_claimed));
  EXPECT_EQ(queue.size(), static_cast<size_t>(c.want_claimed));
  auto running = inner_->NonTerminal();
  ASSERT_TRUE(running.ok());
  int owned = 0;
  for (const JobRecord& job : *running) owned += job.owner == "node-a" ? 1 : 0;
  EXPECT_EQ(owned, c.want_claimed);
}

INSTANTIATE_TEST_SUITE_P(
    Batches, ClaimLoopTest,
    ::testing::Values(BatchCase{"FourFreeOfTenQueued", 4, 10, 1, 4, {4}},
                      // Full after the first call: the second asks for nothing.
                      BatchCase{"FullNodeMakesNoCall", 4, 10, 2, 4, {4}},
                      BatchCase{"FewerQueuedThanFree", 4, 2, 1, 2, {4}},
                      BatchCase{"OneSlot", 1, 10, 1, 1, {1}},
                      // Capped at kMaxClaimJobs per call; the rest on the next round.
                      BatchCase{
                          "MoreSlotsThanOneClaim", 100, 70, 2, 70, {store::kMaxClaimJobs, 36}}),
    [](const ::testing::TestParamInfo<BatchCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace coderunner::jobs
