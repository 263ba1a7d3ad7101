// Two JobService nodes in fleet mode ("node-a", "node-b") sharing one
// SQLite database file (two stores on the same path) and an in-process
// notice bus: each job runs exactly once, a job submitted on one node is
// waited on, cancelled or finished from the other, a node that lost its
// lease cannot write its result, and a drained node gives its job back.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/engine/containers.h"
#include "coderunner/engine/images.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/store/sqlite_job_store.h"
#include "coderunner/wire/job_submission.h"
#include "jobs/job_metrics.h"
#include "unit/isolation/scripted_engine.h"
#include "unit/jobs/fleet_fakes.h"
#include "unit/jobs/fleet_node.h"

namespace coderunner::jobs {
namespace {

using fleet_test::kAcme;
using fleet_test::kLong;
using fleet_test::Node;
using nlohmann::json;
using store::JobStatus;

int RunningTransitions(const store::JobRecord& rec) {
  int n = 0;
  for (const auto& t : rec.transitions) n += t.status == JobStatus::kRunning ? 1 : 0;
  return n;
}

std::string Stdout(const store::JobRecord& rec) {
  json r = json::parse(rec.result_json, nullptr, false);
  return r.is_object() ? r.value("stdout", "") : "";
}

class JobServiceFleetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-fleet-XXXXXX";
    root_ = mkdtemp(tmpl);
    a_ = std::make_unique<Node>("node-a", root_ + "/jobs.db", bus_);
    b_ = std::make_unique<Node>("node-b", root_ + "/jobs.db", bus_);
  }
  void TearDown() override {
    a_->runner.ReleaseAll();
    b_->runner.ReleaseAll();
    a_.reset();
    b_.reset();
    std::filesystem::remove_all(root_);
  }

  std::string root_;
  testutil::NoticeBus bus_;
  std::unique_ptr<Node> a_;
  std::unique_ptr<Node> b_;
};

TEST_F(JobServiceFleetTest, JobsSubmittedOnEitherNodeRunExactlyOnce) {
  ASSERT_TRUE(a_->service->Start().ok());
  ASSERT_TRUE(b_->service->Start().ok());
  constexpr int kJobs = 12;
  std::vector<std::pair<Node*, std::string>> jobs;
  for (int i = 0; i < kJobs; ++i) {
    Node* n = i % 2 == 0 ? a_.get() : b_.get();
    jobs.emplace_back(n, n->Submit());
  }
  for (auto& [node, id] : jobs) {
    store::JobRecord rec = node->Wait(id);
    EXPECT_EQ(rec.status, JobStatus::kSucceeded) << id;
    EXPECT_EQ(RunningTransitions(rec), 1) << id;
    EXPECT_EQ(rec.attempt, 1) << id;
  }
  std::map<std::string, int> runs = a_->runner.runs();
  for (const auto& [id, n] : b_->runner.runs()) runs[id] += n;
  EXPECT_EQ(runs.size(), static_cast<size_t>(kJobs));
  for (auto& [node, id] : jobs) EXPECT_EQ(runs[id], 1) << id;
}

TEST_F(JobServiceFleetTest, AJobSubmittedOnOneNodeIsWaitedOnFromTheOther) {
  ASSERT_TRUE(a_->service->Start().ok());  // B claims nothing: A runs it.
  std::string id = a_->Submit();
  store::JobRecord rec = b_->Wait(id);
  EXPECT_EQ(rec.status, JobStatus::kSucceeded);
  EXPECT_EQ(Stdout(rec), "ran on node-a\n");
  EXPECT_EQ(b_->hub.Find(id), nullptr) << "B's channel ended with the job";
}

TEST_F(JobServiceFleetTest, CancelOnOneNodeStopsTheContainerOnTheOther) {
  // A runs its jobs in containers on its scripted engine; this one never
  // ends by itself.
  a_ = std::make_unique<Node>("node-a", root_ + "/jobs.db", bus_, 2, 15000, root_ + "/ws-a");
  testutil::ScriptedEngine& engine = a_->engine;
  engine.AnswerCreatesAs("c1", /*running=*/false);
  engine.Answer("POST", "/containers/c1/attach?stream=1&stdout=1&stderr=1", 200,
                testutil::MuxFrame(1, "so far"));
  engine.Answer("POST", "/containers/c1/start", 204, "");
  engine.Answer("POST", "/containers/c1/kill?signal=USR1", 204, "");
  engine.Answer("POST", "/containers/c1/kill?signal=KILL", 204, "");
  engine.Answer("DELETE", "/containers/c1?force=1&v=1", 204, "");
  engine.HoldAttach();
  ASSERT_TRUE(a_->service->Start().ok());
  std::string id = a_->Submit();
  ASSERT_TRUE(engine.WaitForRequest("POST", "/containers/c1/start"));
  auto cancelled = b_->service->Cancel(id, kAcme);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status().ToString();
  EXPECT_EQ(cancelled->status, JobStatus::kCancelled);
  EXPECT_EQ(a_->Wait(id).status, JobStatus::kCancelled);
  // A's container was stopped and removed by B's cancel.
  ASSERT_TRUE(engine.WaitForRequest("DELETE", "/containers/c1?force=1&v=1"));
  EXPECT_GE(engine.Count("POST", "/containers/c1/kill"), 1);
  a_->service->Stop();  // Its worker is done with the job.
  EXPECT_EQ(a_->uids.in_use(), 0);
}

TEST_F(JobServiceFleetTest, ANodeThatLostItsLeaseCannotWriteItsResult) {
  // One slot: A, busy with the job, cannot claim it back once requeued.
  // A short lease: its keeper finds the loss within a third of it.
  a_ = std::make_unique<Node>("node-a", root_ + "/jobs.db", bus_, 1, 1000);
  a_->runner.Hold(true);
  ASSERT_TRUE(a_->service->Start().ok());
  std::string id = a_->Submit();
  ASSERT_TRUE(a_->runner.WaitStarted(1));
  // A goes silent past its lease: any node's sweep requeues the job.
  auto expired = b_->store->RequeueExpired(NowMs() + 3600 * 1000, 2, "{}");
  ASSERT_TRUE(expired.ok());
  ASSERT_EQ(expired->requeued, std::vector<std::string>{id});
  ASSERT_TRUE(b_->service->Start().ok());  // B claims it and runs it.
  store::JobRecord rec = b_->Wait(id);
  EXPECT_EQ(rec.status, JobStatus::kSucceeded);
  EXPECT_EQ(Stdout(rec), "ran on node-b\n");
  // A's lease keeper finds the job lost and stops A's run (never
  // released); had it finished, its result would be fenced off.
  ASSERT_TRUE(a_->runner.WaitReturned(1));
  EXPECT_EQ(a_->runner.cancelled(), 1);
  a_->service->Stop();
  auto after = b_->store->Get(id, kAcme);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->status, JobStatus::kSucceeded);
  EXPECT_EQ(Stdout(*after), "ran on node-b\n");
  EXPECT_EQ(after->attempt, 2);
  EXPECT_EQ(RunningTransitions(*after), 2);
  EXPECT_EQ(a_->runner.runs()[id], 1);
  EXPECT_EQ(b_->runner.runs()[id], 1);
}

TEST_F(JobServiceFleetTest, ADrainedNodeGivesItsRunningJobBackToTheOther) {
  a_->runner.Hold(true);
  ASSERT_TRUE(a_->service->Start().ok());
  std::string id = a_->Submit();
  ASSERT_TRUE(a_->runner.WaitStarted(1));
  a_->service->Drain(std::chrono::milliseconds(0));
  auto requeued = b_->store->Get(id, kAcme);
  ASSERT_TRUE(requeued.ok());
  EXPECT_EQ(requeued->status, JobStatus::kQueued);
  EXPECT_EQ(requeued->owner, "");
  ASSERT_TRUE(b_->service->Start().ok());
  store::JobRecord rec = b_->Wait(id);
  EXPECT_EQ(rec.status, JobStatus::kSucceeded);
  EXPECT_EQ(Stdout(rec), "ran on node-b\n");
  EXPECT_EQ(rec.attempt, 2);
  EXPECT_EQ(a_->runner.runs()[id], 1);
  EXPECT_EQ(b_->runner.runs()[id], 1);
}

TEST_F(JobServiceFleetTest, ARestartedNodeRequeuesTheJobsItWasRunning) {
  std::string id = b_->Submit();
  // A claimed it, then died (the record still says running, owned by A).
  auto claimed = a_->store->Claim("node-a", 1, NowMs(), 15000);
  ASSERT_TRUE(claimed.ok());
  ASSERT_EQ(claimed->size(), 1u);
  ASSERT_TRUE(a_->service->Start().ok());  // A again, restarted.
  store::JobRecord rec = b_->Wait(id);
  EXPECT_EQ(rec.status, JobStatus::kSucceeded);
  EXPECT_EQ(Stdout(rec), "ran on node-a\n");
  EXPECT_EQ(rec.attempt, 2);
  EXPECT_EQ(RunningTransitions(rec), 2);
  EXPECT_EQ(a_->runner.runs()[id], 1);
}

TEST_F(JobServiceFleetTest, AResultWrittenAfterTheLeaseWasLostIsDropped) {
  a_ = std::make_unique<Node>("node-a", root_ + "/jobs.db", bus_, 1);
  a_->runner.Hold(true);
  b_->runner.Hold(true);
  ASSERT_TRUE(a_->service->Start().ok());
  std::string id = a_->Submit();
  ASSERT_TRUE(a_->runner.WaitStarted(1));
  auto expired = b_->store->RequeueExpired(NowMs() + 3600 * 1000, 2, "{}");
  ASSERT_TRUE(expired.ok());
  ASSERT_EQ(expired->requeued, std::vector<std::string>{id});
  ASSERT_TRUE(b_->service->Start().ok());
  ASSERT_TRUE(b_->runner.WaitStarted(1));  // B claimed it and runs it.
  // A's run finishes while B's runs: the fence refuses A's result.
  a_->runner.ReleaseAll();
  ASSERT_TRUE(a_->runner.WaitReturned(1));
  a_->service->Stop();
  EXPECT_EQ(a_->runner.cancelled(), 0);
  auto rec = b_->store->Get(id, kAcme);
  ASSERT_TRUE(rec.ok());
  EXPECT_EQ(rec->status, JobStatus::kRunning);
  EXPECT_EQ(rec->owner, "node-b");
  EXPECT_EQ(rec->result_json, "");
  b_->runner.ReleaseAll();
  store::JobRecord done = b_->Wait(id);
  EXPECT_EQ(done.status, JobStatus::kSucceeded);
  EXPECT_EQ(Stdout(done), "ran on node-b\n");
  EXPECT_EQ(a_->runner.runs()[id], 1);
  EXPECT_EQ(b_->runner.runs()[id], 1);
}

TEST_F(JobServiceFleetTest, ChannelOpensForAJobSubmittedOnAnotherNode) {
  std::string id = a_->Submit();
  EXPECT_EQ(b_->hub.Find(id), nullptr);
  std::shared_ptr<JobChannel> ch = b_->service->Channel(id);
  ASSERT_NE(ch, nullptr);
  EXPECT_EQ(b_->hub.Find(id), ch);
  ASSERT_TRUE(a_->service->Start().ok());
  ASSERT_TRUE(ch->WaitTerminal(std::chrono::steady_clock::now() + kLong));
  EXPECT_EQ(ch->final_status(), JobStatus::kSucceeded);
  EXPECT_EQ(b_->hub.Find(id), nullptr);
}

TEST_F(JobServiceFleetTest, AResyncCatchesUpOnNoticesThatWereLost) {
  std::string id = a_->Submit();
  std::shared_ptr<JobChannel> ch = b_->service->Channel(id);
  ASSERT_NE(ch, nullptr);
  b_->notices.Stop();  // B's subscription is lost: A's notices pass it by.
  ASSERT_TRUE(a_->service->Start().ok());
  EXPECT_EQ(a_->Wait(id).status, JobStatus::kSucceeded);
  EXPECT_EQ(b_->hub.Find(id), ch) << "B heard nothing yet";
  b_->service->OnResync();
  EXPECT_EQ(b_->hub.Find(id), nullptr);
  ASSERT_TRUE(ch->WaitTerminal(std::chrono::steady_clock::now() + kLong));
  EXPECT_EQ(ch->final_status(), JobStatus::kSucceeded);
}

}  // namespace
}  // namespace coderunner::jobs
