// Two JobService nodes in fleet mode ("node-a", "node-b") sharing one
// PostgreSQL database (two stores on the same conninfo) and an in-process
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
#include "coderunner/jobs/job_clock.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/wire/execute_request.h"
#include "coderunner/wire/job_submission.h"
#include "jobs/job_metrics.h"
#include "unit/fleet/fleet_node.h"
#include "unit/isolation/scripted_engine.h"
#include "unit/jobs/fleet_fakes.h"

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
    db_ = std::make_unique<fleet_test::FleetDatabase>();
    a_ = std::make_unique<Node>("node-a", db_->conninfo(), bus_);
    b_ = std::make_unique<Node>("node-b", db_->conninfo(), bus_);
  }
  void TearDown() override {
    a_->runner.ReleaseAll();
    b_->runner.ReleaseAll();
    a_.reset();
    b_.reset();
    db_.reset();
    std::filesystem::remove_all(root_);
  }

  std::string root_;
  std::unique_ptr<fleet_test::FleetDatabase> db_;  // Dropped after the nodes.
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
  a_ = std::make_unique<Node>("node-a", db_->conninfo(), bus_, 2, 15000, root_ + "/ws-a");
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
  a_ = std::make_unique<Node>("node-a", db_->conninfo(), bus_, 1, 1000);
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
  a_ = std::make_unique<Node>("node-a", db_->conninfo(), bus_, 1);
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
  b_->dispatch->OnResync();
  EXPECT_EQ(b_->hub.Find(id), nullptr);
  ASSERT_TRUE(ch->WaitTerminal(std::chrono::steady_clock::now() + kLong));
  EXPECT_EQ(ch->final_status(), JobStatus::kSucceeded);
}

// Submits on `node` as kAcme (under `tier` if any); the Status only.
Status SubmitOn(Node& node, const config::TierConfig* tier) {
  auto sub =
      wire::ParseJobSubmission(R"json({"code":"print(1)"})json", node.service->submission_rules());
  EXPECT_TRUE(sub.ok());
  auto accepted = node.service->Submit(kAcme, std::move(*sub), tier);
  return accepted.ok() ? OkStatus() : accepted.status();
}

// Neither node started: every accepted job stays queued in the store, so
// the bounds count them all. Submissions alternate between the nodes.
TEST_F(JobServiceFleetTest, QueueBoundsAreCountedOverEveryNode) {
  config::TierConfig tier;
  tier.name = "small";
  tier.max_queued = 3;
  struct Case {
    const char* name;
    const config::TierConfig* tier;
    int max_queued;  // jobs.max_queued of both nodes.
    int accepted;
    const char* reason;
    std::string message;
  };
  const Case cases[] = {
      {"tier", &tier, 100, 3, store::kReasonTierQueueFull,
       "tier small allows 3 queued jobs per tenant (max_queued); retry later"},
      {"total", nullptr, 2, 2, store::kReasonQueueFull,
       "the job queue is full (2 jobs waiting); retry later"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TearDown();
    SetUp();
    a_->config.jobs.max_queued = b_->config.jobs.max_queued = c.max_queued;
    int accepted = 0;
    for (int i = 0; i < 6; ++i) {
      Status s = SubmitOn(i % 2 == 0 ? *a_ : *b_, c.tier);
      if (s.ok()) {
        ++accepted;
        continue;
      }
      EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
      EXPECT_EQ(s.reason(), c.reason);
      EXPECT_EQ(s.message(), c.message);
    }
    EXPECT_EQ(accepted, c.accepted);
    auto open = a_->store->NonTerminal();
    ASSERT_TRUE(open.ok());
    EXPECT_EQ(static_cast<int>(open->size()), c.accepted);
    EXPECT_EQ(a_->metrics.Value("coderunner_jobs_rejected_total", {{"reason", c.reason}}) +
                  b_->metrics.Value("coderunner_jobs_rejected_total", {{"reason", c.reason}}),
              6 - c.accepted);
    EXPECT_EQ(a_->queue.size() + b_->queue.size(), 0u);  // No local reservation left.
  }
}

// Cache hits meet the fleet-wide bound too: with the tier's 2 queued jobs
// stored by the other node, a hit is refused; a batch of hits counts its
// hits so far as queued, so only 2 of 3 are answered.
TEST_F(JobServiceFleetTest, CacheHitsMeetTheFleetWideTierBound) {
  constexpr const char* kDigest =
      "sha256:feedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeedfeed";
  const std::string body = R"json({"code":"print(1)"})json";
  config::TierConfig tier;
  tier.name = "small";
  tier.max_queued = 2;
  for (Node* n : {a_.get(), b_.get()}) {
    n->config.jobs.cache_ttl_s = 3600;
    n->engine.AnswerJson("GET", "/images/" + n->config.DefaultLanguage().image + "/json", 200,
                         {{"Id", kDigest}});
  }
  auto req = wire::ParseExecuteRequest(body, wire::RequestCaps{});
  ASSERT_TRUE(req.ok());
  auto spec = wire::BuildJobSpec(*req, a_->config, "any");
  ASSERT_TRUE(spec.ok());
  const std::string key = CacheKey(*spec, kAcme, kDigest, req->output_encoding);
  ASSERT_TRUE(
      a_->store->CachePut(key, R"json({"status":"succeeded","stdout":"1\n"})json", NowMs() + 60000)
          .ok());
  auto submit = [&](Node& node, const std::string& b) {
    auto sub = wire::ParseJobSubmission(b, node.service->submission_rules());
    EXPECT_TRUE(sub.ok());
    return std::move(*sub);
  };
  // A batch of three hits on B, nothing queued: the third is refused.
  std::vector<StatusOr<wire::JobSubmission>> batch;
  for (int i = 0; i < 3; ++i) batch.push_back(submit(*b_, body));
  auto answers = b_->service->SubmitBatch(kAcme, std::move(batch), &tier);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_TRUE(answers[0].ok() && answers[0]->record.cached);
  EXPECT_TRUE(answers[1].ok() && answers[1]->record.cached);
  EXPECT_EQ(answers[2].status().reason(), store::kReasonTierQueueFull);
  // Two queued on A (no cache): B's hit is refused, counted fleet-wide.
  const std::string miss = R"json({"code":"print(1)","cache":false})json";
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(a_->service->Submit(kAcme, submit(*a_, miss), &tier).ok());
  }
  auto hit = b_->service->Submit(kAcme, submit(*b_, body), &tier);
  EXPECT_EQ(hit.status().reason(), store::kReasonTierQueueFull);
  EXPECT_EQ(b_->metrics.Value("coderunner_cache_hits_total"), 2);
}

}  // namespace
}  // namespace coderunner::jobs
