// The BoundedQueue contract (queue_bounds.h): the tenant's and the total
// queued bounds are exact under concurrent inserts on two handles (two
// nodes), a claimed job frees its slot, and a finished record (a cache hit)
// is bounded but never counts. Runs over every FleetBackends() backend
// (a single node's SQLite store keeps no BoundedQueue).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/store/queue_bounds.h"
#include "job_store_contract.h"

namespace coderunner::store {
namespace {

class BoundedQueueContractTest : public JobStoreContractFixture {
 protected:
  BoundedQueue& Queue(JobStore* store = nullptr) {
    BoundedQueue* queue = Parts(store).bounded;
    EXPECT_NE(queue, nullptr) << GetParam().name << " keeps no BoundedQueue";
    return *queue;
  }
  // Queued jobs stored, of `tenant` ("" all).
  int Queued(const std::string& tenant = "") {
    auto jobs = store_->NonTerminal();
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    int n = 0;
    for (const JobRecord& j : jobs.ok() ? *jobs : std::vector<JobRecord>{}) {
      if (j.status == JobStatus::kQueued && (tenant.empty() || j.tenant == tenant)) ++n;
    }
    return n;
  }
  // Inserts from 4 threads over store_ and `other`, 5 jobs each, of tenant
  // "t<i % tenants>"; counts the answers by reason ("" OK).
  std::map<std::string, int> Race(JobStore* other, int tenants, const QueueBounds& bounds) {
    std::mutex mu;
    std::map<std::string, int> answers;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        BoundedQueue& q = Queue(t % 2 == 0 ? store_.get() : other);
        for (int i = 0; i < 5; ++i) {
          int n = t * 5 + i;
          Status s = q.InsertWithin(
              MakeJob("job-" + std::to_string(n), 1000 + n, "t" + std::to_string(n % tenants)),
              bounds);
          std::lock_guard<std::mutex> lock(mu);
          ++answers[s.ok() ? "" : s.reason()];
        }
      });
    }
    for (std::thread& th : threads) th.join();
    return answers;
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, BoundedQueueContractTest, ::testing::ValuesIn(FleetBackends()),
                         BackendName);

using Answers = std::map<std::string, int>;

TEST_P(BoundedQueueContractTest, ConcurrentInsertsOnTwoNodesMeetTheTenantBoundExactly) {
  if (!CanReopen()) GTEST_SKIP() << "backend cannot reopen";
  auto other = OpenAgain();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Answers got = Race(other->get(), 1, QueueBounds{5, 0, 100});
  EXPECT_EQ(got, (Answers{{"", 5}, {kReasonTierQueueFull, 15}}));
  EXPECT_EQ(Queued("t0"), 5);
  other->reset();
}

TEST_P(BoundedQueueContractTest, ConcurrentInsertsOnTwoNodesMeetTheTotalBoundExactly) {
  if (!CanReopen()) GTEST_SKIP() << "backend cannot reopen";
  auto other = OpenAgain();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Answers got = Race(other->get(), 3, QueueBounds{0, 0, 5});
  EXPECT_EQ(got, (Answers{{"", 5}, {kReasonQueueFull, 15}}));
  EXPECT_EQ(Queued(), 5);
  other->reset();
}

TEST_P(BoundedQueueContractTest, AClaimedJobFreesASlot) {
  const QueueBounds bounds{2, 0, 0};
  ASSERT_TRUE(Queue().InsertWithin(MakeJob("a", 1, "acme"), bounds).ok());
  ASSERT_TRUE(Queue().InsertWithin(MakeJob("b", 2, "acme"), bounds).ok());
  EXPECT_EQ(Queue().InsertWithin(MakeJob("c", 3, "acme"), bounds).reason(), kReasonTierQueueFull);
  auto claimed = store_->Claim("node-1", 1, 10, 60'000);
  ASSERT_TRUE(claimed.ok()) << claimed.status().ToString();
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_TRUE(Queue().InsertWithin(MakeJob("c", 3, "acme"), bounds).ok());
  EXPECT_EQ(Queued("acme"), 2);
}

TEST_P(BoundedQueueContractTest, AFinishedRecordIsBoundedButNeverCounts) {
  JobRecord hit = MakeJob("hit", 1, "acme");
  hit.status = JobStatus::kSucceeded;
  hit.cached = true;
  hit.finished_at_ms = 1;
  hit.transitions.push_back({JobStatus::kSucceeded, 1});
  hit.result_json = R"({"status":"succeeded"})";
  EXPECT_TRUE(Queue().InsertWithin(hit, QueueBounds{1, 0, 1}).ok());
  EXPECT_TRUE(Queue().InsertWithin(MakeJob("q", 2, "acme"), QueueBounds{1, 0, 1}).ok());
  hit.id = "hit-2";
  EXPECT_EQ(Queue().InsertWithin(hit, QueueBounds{1, 0, 1}).reason(), kReasonTierQueueFull);
  EXPECT_EQ(MustGet("hit").status, JobStatus::kSucceeded);
  EXPECT_EQ(Queued("acme"), 1);
}

TEST_P(BoundedQueueContractTest, RefusalsInsertNothingAndDuplicatesAreAlreadyExists) {
  ASSERT_TRUE(Queue().InsertWithin(MakeJob("a", 1, "acme"), QueueBounds{}).ok());
  EXPECT_EQ(Queue().InsertWithin(MakeJob("a", 2, "acme"), QueueBounds{}).code(),
            StatusCode::kAlreadyExists);
  // The batch's hits count for the tenant only.
  EXPECT_EQ(Queue().InsertWithin(MakeJob("b", 2, "acme"), QueueBounds{3, 2, 0}).reason(),
            kReasonTierQueueFull);
  EXPECT_TRUE(Queue().InsertWithin(MakeJob("b", 2, "other"), QueueBounds{3, 2, 2}).ok());
  EXPECT_EQ(Queue().InsertWithin(MakeJob("c", 3, "other"), QueueBounds{0, 0, 2}).reason(),
            kReasonQueueFull);
  EXPECT_EQ(Queued(), 2);
}

TEST(CheckQueueBoundsTest, TenantFirstThenTotal) {
  struct Case {
    int64_t tenant_queued, total_queued;
    QueueBounds bounds;
    const char* reason;  // "" OK.
  };
  const Case cases[] = {
      {0, 0, {}, ""},
      {4, 9, {5, 0, 10}, ""},
      {5, 5, {5, 0, 10}, kReasonTierQueueFull},
      {3, 3, {5, 2, 10}, kReasonTierQueueFull},
      {3, 10, {5, 0, 10}, kReasonQueueFull},
      {5, 10, {5, 0, 10}, kReasonTierQueueFull},
      {100, 100, {0, 0, 0}, ""},
  };
  for (const Case& c : cases) {
    Status s = CheckQueueBounds(c.tenant_queued, c.total_queued, c.bounds);
    EXPECT_EQ(s.ok() ? std::string() : s.reason(), c.reason)
        << c.tenant_queued << "/" << c.total_queued;
    if (!s.ok()) {
      EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
    }
  }
}

}  // namespace
}  // namespace coderunner::store
