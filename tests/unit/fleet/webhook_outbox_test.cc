// Webhooks through the store's outbox (WebhookOutbox, WebhookOutboxLoop),
// against a real local receiver (HookServer) and SQLite stores: a pending
// webhook survives a restart, two nodes sharing one database send each one
// exactly once to a healthy receiver, a failing receiver is retried then
// given up, and a node that dies holding a delivery's lease leaves it to
// another node once the lease runs out.
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
#include "coderunner/fleet/fleet_dispatch.h"
#include "coderunner/jobs/job_clock.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/jobs/webhook_sender.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "coderunner/wire/job_submission.h"
#include "jobs/job_metrics.h"
#include "jobs/webhook_outbox_loop.h"
#include "unit/isolation/scripted_engine.h"
#include "unit/jobs/fleet_fakes.h"
#include "unit/jobs/hook_server.h"

namespace coderunner::jobs {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using store::JobStatus;
using testutil::BlackHole;
using testutil::HookServer;

constexpr const char* kAcme = "acme";
constexpr auto kLong = milliseconds(60000);

WebhookOptions FastOptions(int retries = 3) {
  WebhookOptions o;
  o.allow_private = true;
  o.retries = retries;
  o.first_backoff = milliseconds(10);
  o.timeout = milliseconds(5000);
  o.threads = 2;
  return o;
}

// The job id of each request `server` received, with how often it came.
std::map<std::string, int> HitsPerJob(const HookServer& server) {
  std::map<std::string, int> hits;
  for (const HookServer::Request& r : server.requests()) {
    json body = json::parse(r.body, nullptr, false);
    ++hits[body.is_object() ? body.value("id", "?") : "?"];
  }
  return hits;
}

// One node: its own store handle on the shared SQLite file, a JobService
// (fleet mode, or the single-node path) whose jobs run on a CountingRunner,
// and a WebhookSender unless `send` is false. A SQLite store keeps no
// bounded queue: in fleet mode these nodes admit jobs on their own queue
// bounds (the webhooks are what is tested here).
struct Node {
  Node(const std::string& name, const std::string& db, testutil::NoticeBus& bus, bool fleet,
       bool send, WebhookOptions options = FastOptions())
      : runner(name), notices(bus) {
    config = config::DefaultConfig();
    config.instance = name;
    config.jobs.cache_ttl_s = 0;
    config.jobs.max_concurrent = 2;
    config.jobs.webhook_allow_private = true;
    auto opened = store::SqliteJobStore::Open(db);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    store = std::move(*opened);
    engine.AnswerJson("GET",
                      "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22io.coderunner."
                      "instance%3D" +
                          name + "%22%2C%22io.coderunner.managed%3Dtrue%22%5D%7D",
                      200, json::array());
    if (send) sender = std::make_unique<WebhookSender>(options);
    DeclareJobMetrics(metrics);
    JobServiceDeps d;
    d.config = &config;
    d.store = store.get();
    d.queue = &queue;
    d.hub = &hub;
    d.metrics = &metrics;
    d.images = &images;
    d.runner = &runner;
    d.containers = &containers;
    d.webhooks = sender.get();
    if (fleet) {
      dispatch = fleet::NewFleetDispatch(fleet::FleetDispatchDeps{
          &config, store.get(), nullptr, &queue, &hub, &metrics, &containers, nullptr, &notices});
      d.dispatch = dispatch.get();
    }
    d.outbox = store.get();
    service = JobService::Create(d);
    if (fleet) {
      EXPECT_TRUE(notices
                      .Start([f = dispatch.get()](const store::JobNotice& n) { f->OnNotice(n); },
                             [f = dispatch.get()] { f->OnResync(); })
                      .ok());
    }
  }
  ~Node() {
    notices.Stop();
    service.reset();
    sender.reset();  // Its threads report to the store: before it.
  }

  std::string Submit(const std::string& callback_url) {
    json body = {{"code", "print(1)"}, {"callback_url", callback_url}};
    auto sub = wire::ParseJobSubmission(body.dump(), service->submission_rules());
    EXPECT_TRUE(sub.ok()) << sub.status().ToString();
    auto accepted = service->Submit(kAcme, std::move(*sub));
    EXPECT_TRUE(accepted.ok()) << accepted.status().ToString();
    return accepted.ok() ? accepted->record.id : "";
  }
  JobStatus Wait(const std::string& id) {
    auto rec = service->Wait(id, kAcme, kLong);
    EXPECT_TRUE(rec.ok()) << rec.status().ToString();
    return rec.ok() ? rec->status : JobStatus::kQueued;
  }
  size_t Owed() {
    auto rows = store->ListDeliveries();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? rows->size() : 0;
  }

  config::Config config;
  std::unique_ptr<store::SqliteJobStore> store;
  testutil::ScriptedEngine engine;
  engine::ContainerClient containers{engine, std::chrono::seconds(5)};
  engine::ImageClient images{engine, std::chrono::seconds(5)};
  testutil::CountingRunner runner;
  testutil::FakeJobNotices notices;
  JobQueue queue{100};
  JobHub hub;
  MetricsRegistry metrics;
  std::unique_ptr<WebhookSender> sender;
  std::unique_ptr<fleet::FleetDispatch> dispatch;  // Null off fleet mode; before service.
  std::unique_ptr<JobService> service;
};

// Waits (bounded by the hang guard) until no node owes a delivery and no
// sender has one waiting or in flight: nothing more can reach a receiver.
bool WaitSettled(const std::vector<Node*>& nodes) {
  auto deadline = std::chrono::steady_clock::now() + testutil::kFleetHangGuard;
  while (std::chrono::steady_clock::now() < deadline) {
    bool settled = nodes[0]->Owed() == 0;
    for (Node* n : nodes) settled = settled && (!n->sender || n->sender->WaitIdle(kLong));
    if (settled && nodes[0]->Owed() == 0) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return false;
}

class WebhookOutboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-outbox-XXXXXX";
    root_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string Db() const { return root_ + "/jobs.db"; }

  std::string root_;
  testutil::NoticeBus bus_;
};

TEST_F(WebhookOutboxTest, APendingWebhookIsDeliveredOnceAfterARestart) {
  HookServer server;
  std::string id;
  {
    // A node that finishes the job but never sends (it "dies" first).
    Node before("node-a", Db(), bus_, /*fleet=*/false, /*send=*/false);
    ASSERT_TRUE(before.service->Start().ok());
    id = before.Submit(server.Url());
    ASSERT_EQ(before.Wait(id), JobStatus::kSucceeded);
    EXPECT_EQ(before.Owed(), 1u);
  }
  EXPECT_TRUE(server.requests().empty());
  Node after("node-a", Db(), bus_, /*fleet=*/false, /*send=*/true);
  ASSERT_TRUE(after.service->Start().ok());
  ASSERT_TRUE(server.WaitForRequests(1, kLong));
  ASSERT_TRUE(WaitSettled({&after}));
  EXPECT_EQ(HitsPerJob(server), (std::map<std::string, int>{{id, 1}}));
  json body = json::parse(server.requests()[0].body);
  EXPECT_EQ(body["status"], "succeeded");
  EXPECT_EQ(after.sender->stats().delivered, 1u);
}

TEST_F(WebhookOutboxTest, ARestartedNodeSendsWhatItsDeadProcessHadLeasedAtOnce) {
  HookServer server;
  std::string id;
  {
    Node before("node-a", Db(), bus_, /*fleet=*/false, /*send=*/false);
    ASSERT_TRUE(before.service->Start().ok());
    id = before.Submit(server.Url());
    ASSERT_EQ(before.Wait(id), JobStatus::kSucceeded);
    // It claimed the delivery for an hour, then died before sending it.
    auto held = before.store->ClaimDeliveries("node-a", 1, NowMs(), 3600000, 1, {});
    ASSERT_TRUE(held.ok() && held->size() == 1u);
  }
  Node after("node-a", Db(), bus_, /*fleet=*/false, /*send=*/true);
  ASSERT_TRUE(after.service->Start().ok());
  ASSERT_TRUE(server.WaitForRequests(1, kLong));
  ASSERT_TRUE(WaitSettled({&after}));
  EXPECT_EQ(HitsPerJob(server), (std::map<std::string, int>{{id, 1}}));
}

TEST_F(WebhookOutboxTest, TwoNodesSendEachWebhookExactlyOnceToAHealthyReceiver) {
  HookServer server;
  Node a("node-a", Db(), bus_, /*fleet=*/true, /*send=*/true);
  Node b("node-b", Db(), bus_, /*fleet=*/true, /*send=*/true);
  ASSERT_TRUE(a.service->Start().ok());
  ASSERT_TRUE(b.service->Start().ok());
  constexpr int kJobs = 10;
  std::vector<std::pair<Node*, std::string>> jobs;
  for (int i = 0; i < kJobs; ++i) {
    Node* n = i % 2 == 0 ? &a : &b;
    jobs.emplace_back(n, n->Submit(server.Url()));
  }
  for (auto& [node, id] : jobs) ASSERT_EQ(node->Wait(id), JobStatus::kSucceeded) << id;
  ASSERT_TRUE(server.WaitForRequests(kJobs, kLong));
  ASSERT_TRUE(WaitSettled({&a, &b}));
  std::map<std::string, int> hits = HitsPerJob(server);
  EXPECT_EQ(hits.size(), static_cast<size_t>(kJobs));
  for (auto& [node, id] : jobs) EXPECT_EQ(hits[id], 1) << id;
  EXPECT_EQ(a.sender->stats().delivered + b.sender->stats().delivered,
            static_cast<uint64_t>(kJobs));
}

TEST_F(WebhookOutboxTest, ACancelledJobOwesItsWebhookOnceToo) {
  HookServer server;
  Node node("node-a", Db(), bus_, /*fleet=*/true, /*send=*/true);
  node.runner.Hold(true);
  ASSERT_TRUE(node.service->Start().ok());
  std::string id = node.Submit(server.Url());
  ASSERT_TRUE(node.runner.WaitStarted(1));
  auto cancelled = node.service->Cancel(id, kAcme);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status().ToString();
  ASSERT_EQ(node.Wait(id), JobStatus::kCancelled);
  ASSERT_TRUE(node.runner.WaitReturned(1));
  ASSERT_TRUE(server.WaitForRequests(1, kLong));
  ASSERT_TRUE(WaitSettled({&node}));
  // The run's own end lost to the cancel: it owes nothing more.
  EXPECT_EQ(HitsPerJob(server), (std::map<std::string, int>{{id, 1}}));
  EXPECT_EQ(json::parse(server.requests()[0].body)["status"], "cancelled");
}

TEST_F(WebhookOutboxTest, RetriesUntilTheReceiverTakesItOrGivesUpAfterRetries) {
  struct Case {
    const char* name;
    int retries;
    std::function<int(int)> status_for;  // Of the n-th request.
    size_t attempts;
    uint64_t delivered;
    uint64_t failed;
  };
  const Case cases[] = {
      {"fails twice, then 200", 3, [](int n) { return n <= 2 ? 500 : 200; }, 3, 1, 0},
      {"always 503, one retry", 1, [](int) { return 503; }, 2, 0, 1},
      {"always 500, no retry", 0, [](int) { return 500; }, 1, 0, 1},
  };
  int i = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    HookServer server(c.status_for);
    Node node("node-a", root_ + "/jobs-" + std::to_string(i++) + ".db", bus_, /*fleet=*/true,
              /*send=*/true, FastOptions(c.retries));
    ASSERT_TRUE(node.service->Start().ok());
    std::string id = node.Submit(server.Url());
    ASSERT_EQ(node.Wait(id), JobStatus::kSucceeded);
    ASSERT_TRUE(server.WaitForRequests(c.attempts, kLong));
    ASSERT_TRUE(WaitSettled({&node}));
    EXPECT_EQ(server.requests().size(), c.attempts);
    EXPECT_EQ(node.Owed(), 0u);  // Delivered or given up: the row is gone.
    EXPECT_EQ(node.sender->stats().delivered, c.delivered);
    EXPECT_EQ(node.sender->stats().failed, c.failed);
  }
}

TEST_F(WebhookOutboxTest, ANodeThatDiedHoldingTheLeaseLeavesItToAnotherAfterTheLease) {
  HookServer server;
  auto opened = store::SqliteJobStore::Open(Db());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<store::SqliteJobStore> db = std::move(*opened);
  store::JobRecord job;
  job.id = "job-000000000000000000000001";
  job.tenant = kAcme;
  job.created_at_ms = NowMs();
  job.callback_url = server.Url();
  job.transitions = {{JobStatus::kQueued, job.created_at_ms}};
  ASSERT_TRUE(db->Insert({job}).ok());
  ASSERT_TRUE(db->Transition(job.id, JobStatus::kSucceeded, NowMs(), "{}", "", "").ok());

  // node-dead claims it and never reports (its process is gone).
  const int64_t claimed_at = NowMs();
  auto dead = db->ClaimDeliveries("node-dead", 1, claimed_at, 60000, 1, {});
  ASSERT_TRUE(dead.ok() && dead->size() == 1u);

  WebhookSender sender(FastOptions());
  WebhookOutboxLoop live(WebhookOutboxLoopDeps{db.get(), db.get(), &sender, "node-b", 60000});
  EXPECT_EQ(live.RunOnce(claimed_at + 60000), 0);  // The lease holds to its end.
  EXPECT_EQ(live.RunOnce(claimed_at + 60001), 1);
  ASSERT_TRUE(server.WaitForRequests(1, kLong));
  ASSERT_TRUE(sender.WaitIdle(kLong));
  EXPECT_EQ(HitsPerJob(server), (std::map<std::string, int>{{job.id, 1}}));
  auto rows = db->ListDeliveries();
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->empty());
  // The dead node's report, had it come back, is refused.
  EXPECT_EQ(db->Delivered(job.id, "node-dead").reason(), store::kReasonDeliveryLost);
}

TEST_F(WebhookOutboxTest, ARefusedAddressIsGivenUpAtOnceAndNeverReachesTheReceiver) {
  HookServer server;
  auto opened = store::SqliteJobStore::Open(Db());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<store::SqliteJobStore> db = std::move(*opened);
  store::JobRecord job;
  job.id = "job-000000000000000000000002";
  job.created_at_ms = NowMs();
  job.callback_url = server.Url();  // 127.0.0.1: refused without allow_private.
  ASSERT_TRUE(db->Insert({job}).ok());
  ASSERT_TRUE(db->Transition(job.id, JobStatus::kFailed, NowMs(), "{}", "", "").ok());
  WebhookOptions strict = FastOptions();
  strict.allow_private = false;
  WebhookSender sender(strict);
  WebhookOutboxLoop loop(WebhookOutboxLoopDeps{db.get(), db.get(), &sender, "node-a"});
  EXPECT_EQ(loop.RunOnce(NowMs()), 1);
  ASSERT_TRUE(sender.WaitIdle(kLong));
  EXPECT_TRUE(server.requests().empty());
  EXPECT_EQ(sender.stats().failed, 1u);
  auto rows = db->ListDeliveries();
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->empty());
}

TEST_F(WebhookOutboxTest, ATenantWhoseReceiverHangsDoesNotHoldBackAnothersClaims) {
  BlackHole hole;
  HookServer good;
  auto opened = store::SqliteJobStore::Open(Db());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<store::SqliteJobStore> db = std::move(*opened);
  // The slow tenant's deliveries are older: a claim by age alone would
  // take them all first.
  std::vector<std::pair<std::string, std::string>> jobs = {{"slow", hole.server().Url()},
                                                           {"slow", hole.server().Url()},
                                                           {"slow", hole.server().Url()},
                                                           {"quick", good.Url()}};
  for (size_t i = 0; i < jobs.size(); ++i) {
    store::JobRecord job;
    job.id = "job-00000000000000000000000" + std::to_string(i);
    job.tenant = jobs[i].first;
    job.created_at_ms = 1000 + static_cast<int64_t>(i);
    job.callback_url = jobs[i].second;
    ASSERT_TRUE(db->Insert({job}).ok());
    ASSERT_TRUE(
        db->Transition(job.id, JobStatus::kSucceeded, job.created_at_ms, "{}", "", "").ok());
  }
  WebhookOptions options = FastOptions();
  options.threads = 2;
  options.max_in_flight_per_tenant = 1;
  WebhookSender sender(options);
  WebhookOutboxLoop loop(WebhookOutboxLoopDeps{db.get(), db.get(), &sender, "node-a"});
  EXPECT_EQ(loop.RunOnce(NowMs()), 2);  // One of each tenant.
  ASSERT_TRUE(hole.server().WaitForRequests(1, kLong));
  // The quick one is delivered (and reported) while the slow one hangs.
  auto deadline = std::chrono::steady_clock::now() + kLong;
  while (sender.stats().delivered < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  ASSERT_EQ(sender.stats().delivered, 1u);
  EXPECT_EQ(good.requests().size(), 1u);
  EXPECT_EQ(loop.RunOnce(NowMs()), 0);  // The slow tenant has its one slot.
  auto rows = db->ListDeliveries();
  ASSERT_TRUE(rows.ok());
  int leased = 0;
  for (const store::WebhookDelivery& d : *rows) leased += d.owner.empty() ? 0 : 1;
  EXPECT_EQ(rows->size(), 3u);  // The quick one is gone.
  EXPECT_EQ(leased, 1);         // Only the hanging one is leased.
  hole.Release();
  ASSERT_TRUE(sender.WaitIdle(kLong));
  while (loop.RunOnce(NowMs()) > 0) ASSERT_TRUE(sender.WaitIdle(kLong));
  EXPECT_EQ(hole.server().requests().size(), 3u);
  rows = db->ListDeliveries();
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->empty());
}

}  // namespace
}  // namespace coderunner::jobs
