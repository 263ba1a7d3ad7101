// The JobStore contract (job_store.h): Transition, its effects and its races. Runs over every
// ContractBackends() backend.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "job_store_contract.h"

namespace coderunner::store {
namespace {

class JobStoreTransitionContractTest : public JobStoreContractFixture {};

INSTANTIATE_TEST_SUITE_P(Backends, JobStoreTransitionContractTest,
                         ::testing::ValuesIn(ContractBackends()), BackendName);

// --- Transition ------------------------------------------------------------------

TEST_P(JobStoreTransitionContractTest, TransitionQueuedToRunningSetsStartedAt) {
  Insert({MakeJob("job-1", 100)});
  MoveTo("job-1", JobStatus::kRunning, 150);
  JobRecord job = MustGet("job-1");
  EXPECT_EQ(job.status, JobStatus::kRunning);
  EXPECT_EQ(job.started_at_ms, 150);
  EXPECT_EQ(job.finished_at_ms, 0);
  EXPECT_EQ(job.result_json, "");
  ExpectSameTransitions(job.transitions, {{JobStatus::kQueued, 100}, {JobStatus::kRunning, 150}});
}

TEST_P(JobStoreTransitionContractTest, TransitionRunningToTerminalSetsFinishedAtResultAndDigest) {
  int n = 0;
  for (JobStatus to : kTerminalStatuses) {
    SCOPED_TRACE(std::string(store::JobStatusName(to)));
    std::string id = "job-" + std::to_string(n++);
    Insert({MakeJob(id, 100)});
    MoveTo(id, JobStatus::kRunning, 150);
    Status s = store_->Transition(id, to, 300, R"({"status":"x"})", "sha256:feed");
    ASSERT_TRUE(s.ok()) << s.ToString();
    JobRecord job = MustGet(id);
    EXPECT_EQ(job.status, to);
    EXPECT_EQ(job.started_at_ms, 150);
    EXPECT_EQ(job.finished_at_ms, 300);
    EXPECT_EQ(job.result_json, R"({"status":"x"})");
    EXPECT_EQ(job.image_digest, "sha256:feed");
    ExpectSameTransitions(job.transitions,
                          {{JobStatus::kQueued, 100}, {JobStatus::kRunning, 150}, {to, 300}});
  }
}

TEST_P(JobStoreTransitionContractTest, TransitionWithEmptyResultAndDigestKeepsStoredOnes) {
  JobRecord job = MakeJob("job-1", 100);
  job.image_digest = "sha256:known";
  Insert({job});
  MoveTo("job-1", JobStatus::kError, 200);
  JobRecord got = MustGet("job-1");
  EXPECT_EQ(got.image_digest, "sha256:known");
  EXPECT_EQ(got.result_json, "");
  EXPECT_EQ(got.finished_at_ms, 200);
}

TEST_P(JobStoreTransitionContractTest, TransitionToRunningRecordsADigestWhenGiven) {
  Insert({MakeJob("job-1", 100)});
  ASSERT_TRUE(store_->Transition("job-1", JobStatus::kRunning, 150, "", "sha256:run").ok());
  EXPECT_EQ(MustGet("job-1").image_digest, "sha256:run");
  MoveTo("job-1", JobStatus::kSucceeded, 200);  // No digest: the known one stays.
  EXPECT_EQ(MustGet("job-1").image_digest, "sha256:run");
}

TEST_P(JobStoreTransitionContractTest, TransitionFromTerminalIsFailedPrecondition) {
  int n = 0;
  for (JobStatus terminal : kTerminalStatuses) {
    for (JobStatus to : kAllStatuses) {
      SCOPED_TRACE(std::string(store::JobStatusName(terminal)) + " -> " +
                   std::string(store::JobStatusName(to)));
      std::string id = "job-" + std::to_string(n++);
      Insert({MakeJob(id, 100)});
      ASSERT_TRUE(store_->Transition(id, terminal, 200, R"({"first":true})", "sha256:1").ok());
      Status s = store_->Transition(id, to, 300, store::IsTerminal(to) ? R"({"second":1})" : "",
                                    "sha256:2");
      EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
      EXPECT_EQ(s.reason(), "job_terminal");
      JobRecord job = MustGet(id);  // Unchanged.
      EXPECT_EQ(job.status, terminal);
      EXPECT_EQ(job.finished_at_ms, 200);
      EXPECT_EQ(job.result_json, R"({"first":true})");
      EXPECT_EQ(job.image_digest, "sha256:1");
      EXPECT_EQ(job.transitions.size(), 2u);
    }
  }
}

TEST_P(JobStoreTransitionContractTest, TransitionRunningToQueuedIncrementsAttempt) {
  Insert({MakeJob("job-1", 100)});
  MoveTo("job-1", JobStatus::kRunning, 200);
  MoveTo("job-1", JobStatus::kQueued, 300);
  JobRecord job = MustGet("job-1");
  EXPECT_EQ(job.status, JobStatus::kQueued);
  EXPECT_EQ(job.attempt, 2);
  MoveTo("job-1", JobStatus::kRunning, 400);
  job = MustGet("job-1");
  EXPECT_EQ(job.attempt, 2);
  EXPECT_EQ(job.started_at_ms, 400);
  ExpectSameTransitions(job.transitions, {{JobStatus::kQueued, 100},
                                          {JobStatus::kRunning, 200},
                                          {JobStatus::kQueued, 300},
                                          {JobStatus::kRunning, 400}});
}

TEST_P(JobStoreTransitionContractTest, CancelOfQueuedJobFinishesItWithoutStarting) {
  Insert({MakeJob("job-1", 100)});
  MoveTo("job-1", JobStatus::kCancelled, 120);
  JobRecord job = MustGet("job-1");
  EXPECT_EQ(job.status, JobStatus::kCancelled);
  EXPECT_EQ(job.started_at_ms, 0);
  EXPECT_EQ(job.finished_at_ms, 120);
  ExpectSameTransitions(job.transitions, {{JobStatus::kQueued, 100}, {JobStatus::kCancelled, 120}});
  EXPECT_EQ(store_->Transition("job-1", JobStatus::kRunning, 130).reason(), "job_terminal");
}

TEST_P(JobStoreTransitionContractTest, TransitionOfUnknownIdIsNotFound) {
  Status s = store_->Transition("job-nope", JobStatus::kRunning, 1);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.reason(), "job_not_found");
}

TEST_P(JobStoreTransitionContractTest, TransitionWithResultToNonTerminalIsInvalidArgument) {
  Insert({MakeJob("job-1", 100)});
  Status s = store_->Transition("job-1", JobStatus::kRunning, 200, R"({"x":1})");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MustGet("job-1").status, JobStatus::kQueued);
}

// --- Races -----------------------------------------------------------------------

// Eight threads race to finish the same running job with different terminal
// statuses: exactly one wins and the record shows only its transition.
TEST_P(JobStoreTransitionContractTest, ConcurrentTerminalTransitionsHaveExactlyOneWinner) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE(round);
    std::string id = "job-race-" + std::to_string(round);
    Insert({MakeJob(id, 100)});
    MoveTo(id, JobStatus::kRunning, 200);
    std::atomic<bool> go{false};
    std::vector<Status> results(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();
        results[t] = store_->Transition(id, kTerminalStatuses[t % 6], 300 + t,
                                        "{\"by\":" + std::to_string(t) + "}", "");
      });
    }
    go = true;
    for (std::thread& thread : threads) thread.join();

    int winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (results[t].ok()) {
        EXPECT_EQ(winner, -1) << "second winner " << t;
        winner = t;
      } else {
        EXPECT_EQ(results[t].code(), StatusCode::kFailedPrecondition) << results[t].ToString();
        EXPECT_EQ(results[t].reason(), "job_terminal");
      }
    }
    ASSERT_NE(winner, -1);
    JobRecord job = MustGet(id);
    EXPECT_EQ(job.status, kTerminalStatuses[winner % 6]);
    EXPECT_EQ(job.finished_at_ms, 300 + winner);
    EXPECT_EQ(job.result_json, "{\"by\":" + std::to_string(winner) + "}");
    EXPECT_EQ(job.transitions.size(), 3u);
  }
}

// The same race between two stores (connections, or nodes) on the same
// data: the transaction, not only the mutex, decides.
TEST_P(JobStoreTransitionContractTest, ConcurrentTransitionsThroughTwoConnectionsHaveOneWinner) {
  if (!CanReopen()) GTEST_SKIP() << GetParam().name << " cannot reopen a store";
  auto second = OpenAgain();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  constexpr int kRounds = 10;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE(round);
    std::string id = "job-race-" + std::to_string(round);
    Insert({MakeJob(id, 100)});
    MoveTo(id, JobStatus::kRunning, 200);
    std::atomic<bool> go{false};
    std::vector<Status> results(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      JobStore* store = t % 2 == 0 ? store_.get() : static_cast<JobStore*>(second->get());
      threads.emplace_back([&, store, t] {
        while (!go.load()) std::this_thread::yield();
        results[t] = store->Transition(id, kTerminalStatuses[t % 6], 300 + t);
      });
    }
    go = true;
    for (std::thread& thread : threads) thread.join();
    int winners = 0;
    for (const Status& s : results) {
      if (s.ok()) {
        ++winners;
      } else {
        EXPECT_EQ(s.reason(), "job_terminal") << s.ToString();
      }
    }
    EXPECT_EQ(winners, 1);
    EXPECT_EQ(MustGet(id).transitions.size(), 3u);
  }
}

}  // namespace
}  // namespace coderunner::store
