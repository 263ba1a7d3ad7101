// The JobStore contract (job_store.h): leased claims (Claim, RenewLeases,
// RequeueExpired) and the owner fence of Transition. Runs over every
// ContractBackends() backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "job_store_contract.h"

namespace coderunner::store {
namespace {

constexpr const char* kInterrupted = R"json({"status":"error","error":"interrupted"})json";

class JobStoreClaimsContractTest : public JobStoreContractFixture {
 protected:
  std::vector<JobRecord> MustClaim(const std::string& node, int max, int64_t now_ms,
                                   int64_t lease_ms, JobStore* store = nullptr) {
    auto claimed = (store ? store : store_.get())->Claim(node, max, now_ms, lease_ms);
    EXPECT_TRUE(claimed.ok()) << claimed.status().ToString();
    return claimed.ok() ? *claimed : std::vector<JobRecord>{};
  }
  ExpiredLeases MustRequeue(int64_t now_ms, int max_attempts) {
    auto expired = store_->RequeueExpired(now_ms, max_attempts, kInterrupted);
    EXPECT_TRUE(expired.ok()) << expired.status().ToString();
    return expired.ok() ? *expired : ExpiredLeases{};
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, JobStoreClaimsContractTest,
                         ::testing::ValuesIn(ContractBackends()), BackendName);

std::vector<std::string> IdsOf(const std::vector<JobRecord>& jobs) {
  std::vector<std::string> ids;
  for (const JobRecord& job : jobs) ids.push_back(job.id);
  return ids;
}

using Ids = std::vector<std::string>;

TEST_P(JobStoreClaimsContractTest, ClaimTakesOldestQueuedFirstUpToMax) {
  Insert({MakeJob("job-e", 500), MakeJob("job-a", 100), MakeJob("job-c", 300),
          MakeJob("job-b", 200, "other-tenant"), MakeJob("job-d", 400), MakeJob("job-r", 50),
          MakeJob("job-t", 60)});
  MoveTo("job-r", JobStatus::kRunning, 70);  // Running, unowned: not claimable.
  MoveTo("job-t", JobStatus::kCancelled, 70);

  std::vector<JobRecord> first = MustClaim("node-1", 3, 1000, 30000);
  EXPECT_EQ(IdsOf(first), (Ids{"job-a", "job-b", "job-c"}));
  for (const JobRecord& claimed : first) {
    SCOPED_TRACE(claimed.id);
    JobRecord stored = MustGet(claimed.id);
    for (const JobRecord& job : {claimed, stored}) {
      EXPECT_EQ(job.status, JobStatus::kRunning);
      EXPECT_EQ(job.owner, "node-1");
      EXPECT_EQ(job.lease_expires_at_ms, 31000);
      EXPECT_EQ(job.started_at_ms, 1000);
      EXPECT_EQ(job.attempt, 1);
      EXPECT_EQ(job.request_json, kRequestJson);
      ExpectSameTransitions(job.transitions,
                            {{JobStatus::kQueued, job.created_at_ms}, {JobStatus::kRunning, 1000}});
    }
  }
  EXPECT_EQ(IdsOf(MustClaim("node-2", 64, 1001, 30000)), (Ids{"job-d", "job-e"}));
  EXPECT_EQ(MustGet("job-d").owner, "node-2");
  EXPECT_TRUE(MustClaim("node-1", 64, 1002, 30000).empty());
  EXPECT_EQ(MustGet("job-r").owner, "");
  EXPECT_EQ(MustGet("job-t").status, JobStatus::kCancelled);
}

TEST_P(JobStoreClaimsContractTest, ClaimCallsRejectArgumentsOutOfRange) {
  Insert({MakeJob("job-1", 100)});
  struct Case {
    const char* name;
    std::string node;
    int max;
    int64_t lease_ms;
  };
  const Case cases[] = {
      {"empty node", "", 1, 1000},    {"max 0", "n", 0, 1000},
      {"max 65", "n", 65, 1000},      {"lease 0", "n", 1, 0},
      {"lease negative", "n", 1, -5}, {"lease over a day", "n", 1, kMaxLeaseMs + 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto claimed = store_->Claim(c.node, c.max, 1000, c.lease_ms);
    ASSERT_FALSE(claimed.ok());
    EXPECT_EQ(claimed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(claimed.status().reason(), kReasonInvalidClaim);
    if (c.max >= 1 && c.max <= kMaxClaimJobs) {
      auto renewed = store_->RenewLeases(c.node, {"job-1"}, 1000, c.lease_ms);
      ASSERT_FALSE(renewed.ok());
      EXPECT_EQ(renewed.status().reason(), kReasonInvalidClaim);
    }
  }
  auto requeued = store_->RequeueExpired(1000, 0, kInterrupted);
  ASSERT_FALSE(requeued.ok());
  EXPECT_EQ(requeued.status().reason(), kReasonInvalidClaim);
  EXPECT_EQ(MustGet("job-1").status, JobStatus::kQueued);  // Nothing moved.
}

TEST_P(JobStoreClaimsContractTest, ConcurrentClaimersOnTwoStoresTakeEachJobOnce) {
  if (!CanReopen()) GTEST_SKIP() << "backend cannot reopen";
  auto other = OpenAgain();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  constexpr int kJobs = 90;
  std::vector<JobRecord> jobs;
  for (int i = 0; i < kJobs; ++i) jobs.push_back(MakeJob("job-" + std::to_string(i), 100 + i));
  Insert(jobs);

  std::mutex mu;
  std::map<std::string, std::vector<std::string>> claimed_by;  // id -> nodes.
  int failures = 0;
  auto claimer = [&](JobStore* store, const std::string& node) {
    while (true) {
      auto got = store->Claim(node, 4, 1000, 60000);
      std::lock_guard<std::mutex> lock(mu);
      if (!got.ok()) {
        ++failures;
        return;
      }
      if (got->empty()) return;
      for (const JobRecord& job : *got) claimed_by[job.id].push_back(node);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    JobStore* store = t % 2 == 0 ? store_.get() : other->get();
    threads.emplace_back(claimer, store, "node-" + std::to_string(t));
  }
  for (std::thread& thread : threads) thread.join();
  other->reset();

  EXPECT_EQ(failures, 0);
  ASSERT_EQ(claimed_by.size(), static_cast<size_t>(kJobs));
  for (const auto& [id, nodes] : claimed_by) {
    SCOPED_TRACE(id);
    ASSERT_EQ(nodes.size(), 1u);
    JobRecord stored = MustGet(id);
    EXPECT_EQ(stored.status, JobStatus::kRunning);
    EXPECT_EQ(stored.owner, nodes[0]);
    EXPECT_EQ(stored.transitions.size(), 2u);
  }
}

TEST_P(JobStoreClaimsContractTest, RenewExtendsOnlyLeasesTheNodeStillHolds) {
  Insert({MakeJob("job-a1", 100), MakeJob("job-a2", 200), MakeJob("job-b1", 300)});
  ASSERT_EQ(MustClaim("node-a", 2, 1000, 5000).size(), 2u);
  ASSERT_EQ(MustClaim("node-b", 1, 1000, 5000).size(), 1u);

  auto renewed = store_->RenewLeases("node-a", {"job-a1", "job-a2", "job-b1", "job-nope", "job-a1"},
                                     4000, 5000);
  ASSERT_TRUE(renewed.ok()) << renewed.status().ToString();
  EXPECT_EQ(*renewed, (Ids{"job-a1", "job-a2"}));
  EXPECT_EQ(MustGet("job-a1").lease_expires_at_ms, 9000);
  EXPECT_EQ(MustGet("job-a2").lease_expires_at_ms, 9000);
  EXPECT_EQ(MustGet("job-b1").lease_expires_at_ms, 6000);  // Not node-a's.

  // Ended (cancelled here) is lost too; an expired lease not yet requeued
  // is still the node's.
  MoveTo("job-a2", JobStatus::kCancelled, 9500);
  renewed = store_->RenewLeases("node-a", {"job-a1", "job-a2"}, 9500, 5000);
  ASSERT_TRUE(renewed.ok()) << renewed.status().ToString();
  EXPECT_EQ(*renewed, (Ids{"job-a1"}));
  EXPECT_EQ(MustGet("job-a1").lease_expires_at_ms, 14500);
  EXPECT_EQ(MustGet("job-a2").lease_expires_at_ms, 9000);
}

TEST_P(JobStoreClaimsContractTest, ExpiredLeasesRequeueThenEndAsErrorAtMaxAttempts) {
  Insert({MakeJob("job-1", 100), MakeJob("job-2", 200)});
  ASSERT_EQ(MustClaim("node-a", 1, 1000, 1000).size(), 1u);  // job-1 until 2000.
  ASSERT_EQ(MustClaim("node-a", 1, 1500, 1000).size(), 1u);  // job-2 until 2500.

  ExpiredLeases none = MustRequeue(2000, 2);  // job-1's lease holds through 2000.
  EXPECT_TRUE(none.requeued.empty());
  EXPECT_TRUE(none.ended.empty());

  ExpiredLeases first = MustRequeue(2001, 2);
  EXPECT_EQ(first.requeued, (Ids{"job-1"}));
  EXPECT_TRUE(first.ended.empty());
  JobRecord requeued = MustGet("job-1");
  EXPECT_EQ(requeued.status, JobStatus::kQueued);
  EXPECT_EQ(requeued.attempt, 2);
  EXPECT_EQ(requeued.owner, "");
  EXPECT_EQ(requeued.lease_expires_at_ms, 0);
  EXPECT_EQ(requeued.result_json, "");
  ExpectSameTransitions(
      requeued.transitions,
      {{JobStatus::kQueued, 100}, {JobStatus::kRunning, 1000}, {JobStatus::kQueued, 2001}});
  EXPECT_EQ(MustGet("job-2").status, JobStatus::kRunning);

  // Claimed again (attempt 2 of 2) and lost again: it ends.
  ASSERT_EQ(IdsOf(MustClaim("node-b", 1, 3000, 1000)), (Ids{"job-1"}));
  ExpiredLeases second = MustRequeue(5000, 2);
  EXPECT_EQ(second.requeued, (Ids{"job-2"}));
  EXPECT_EQ(second.ended, (Ids{"job-1"}));
  JobRecord ended = MustGet("job-1");
  EXPECT_EQ(ended.status, JobStatus::kError);
  EXPECT_EQ(ended.attempt, 2);
  EXPECT_EQ(ended.result_json, kInterrupted);
  EXPECT_EQ(ended.finished_at_ms, 5000);
  ExpectSameTransitions(ended.transitions, {{JobStatus::kQueued, 100},
                                            {JobStatus::kRunning, 1000},
                                            {JobStatus::kQueued, 2001},
                                            {JobStatus::kRunning, 3000},
                                            {JobStatus::kError, 5000}});
  ExpiredLeases after = MustRequeue(100000, 2);  // Nothing left running.
  EXPECT_TRUE(after.requeued.empty());
  EXPECT_TRUE(after.ended.empty());
}

TEST_P(JobStoreClaimsContractTest, EndingAnExpiredLeaseRedactsTheRequest) {
  OpenFresh([](std::string& request_json, std::string& callback_url) {
    request_json = "{}";
    callback_url.clear();
  });
  JobRecord job = MakeJob("job-1", 100);
  job.callback_url = "https://user:secret@example.test/cb";
  Insert({job});
  ASSERT_EQ(MustClaim("node-a", 1, 1000, 1000).size(), 1u);
  EXPECT_EQ(MustRequeue(3000, 1).ended, (Ids{"job-1"}));
  JobRecord ended = MustGet("job-1");
  EXPECT_EQ(ended.request_json, "{}");
  EXPECT_EQ(ended.callback_url, "");
}

TEST_P(JobStoreClaimsContractTest, FencedTransitionFromTheOldOwnerFailsLeaseLost) {
  Insert({MakeJob("job-1", 100)});
  ASSERT_EQ(MustClaim("node-a", 1, 1000, 1000).size(), 1u);
  ASSERT_EQ(MustRequeue(2500, 3).requeued, (Ids{"job-1"}));
  ASSERT_EQ(MustClaim("node-b", 1, 3000, 1000).size(), 1u);

  Status stale =
      store_->Transition("job-1", JobStatus::kSucceeded, 3500, R"({"by":"a"})", "", "node-a");
  EXPECT_EQ(stale.code(), StatusCode::kFailedPrecondition) << stale.ToString();
  EXPECT_EQ(stale.reason(), kReasonLeaseLost);
  JobRecord running = MustGet("job-1");
  EXPECT_EQ(running.status, JobStatus::kRunning);
  EXPECT_EQ(running.owner, "node-b");
  EXPECT_EQ(running.result_json, "");

  Status fresh =
      store_->Transition("job-1", JobStatus::kSucceeded, 3600, R"({"by":"b"})", "", "node-b");
  ASSERT_TRUE(fresh.ok()) << fresh.ToString();
  JobRecord done = MustGet("job-1");
  EXPECT_EQ(done.status, JobStatus::kSucceeded);
  EXPECT_EQ(done.result_json, R"({"by":"b"})");
  EXPECT_EQ(done.owner, "node-b");  // Kept: the node that finished it.

  // The result is written once: the old owner still cannot, nor can the
  // new one a second time (terminal).
  Status again = store_->Transition("job-1", JobStatus::kFailed, 3700, "", "", "node-a");
  EXPECT_EQ(again.reason(), kReasonLeaseLost);
  again = store_->Transition("job-1", JobStatus::kFailed, 3700, "", "", "node-b");
  EXPECT_EQ(again.reason(), kReasonJobTerminal);
  EXPECT_EQ(MustGet("job-1").result_json, R"({"by":"b"})");
}

TEST_P(JobStoreClaimsContractTest, FencedTransitionOfAQueuedJobFailsLeaseLost) {
  Insert({MakeJob("job-1", 100)});
  ASSERT_EQ(MustClaim("node-a", 1, 1000, 1000).size(), 1u);
  ASSERT_EQ(MustRequeue(2500, 3).requeued, (Ids{"job-1"}));
  Status stale = store_->Transition("job-1", JobStatus::kSucceeded, 2600, "{}", "", "node-a");
  EXPECT_EQ(stale.reason(), kReasonLeaseLost);
  EXPECT_EQ(MustGet("job-1").status, JobStatus::kQueued);
}

TEST_P(JobStoreClaimsContractTest, UnownedJobsAreNeverRequeuedByLeaseExpiry) {
  Insert({MakeJob("job-1", 100), MakeJob("job-2", 200)});
  MoveTo("job-1", JobStatus::kRunning, 150);  // The single-node path: no owner.
  ExpiredLeases expired = MustRequeue(int64_t{1} << 50, 1);
  EXPECT_TRUE(expired.requeued.empty());
  EXPECT_TRUE(expired.ended.empty());
  JobRecord running = MustGet("job-1");
  EXPECT_EQ(running.status, JobStatus::kRunning);
  EXPECT_EQ(running.attempt, 1);
  EXPECT_EQ(MustGet("job-2").status, JobStatus::kQueued);
}

TEST_P(JobStoreClaimsContractTest, TransitionBackToQueuedClearsOwnerAndLease) {
  Insert({MakeJob("job-1", 100)});
  ASSERT_EQ(MustClaim("node-a", 1, 1000, 1000).size(), 1u);
  MoveTo("job-1", JobStatus::kQueued, 1200);  // Crash recovery, unfenced.
  JobRecord queued = MustGet("job-1");
  EXPECT_EQ(queued.owner, "");
  EXPECT_EQ(queued.lease_expires_at_ms, 0);
  EXPECT_EQ(queued.attempt, 2);
  EXPECT_EQ(IdsOf(MustClaim("node-b", 1, 1300, 1000)), (Ids{"job-1"}));
}

}  // namespace
}  // namespace coderunner::store
