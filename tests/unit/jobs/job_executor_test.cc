// JobExecutor over a real ContainerRunner, a SQLite job store and the fake
// engine transport: a queued job record runs to a terminal status with its
// result stored, cached and handed to its waiters.
#include "coderunner/jobs/job_executor.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "jobs/job_metrics.h"
#include "unit/isolation/scripted_engine.h"
#include "unit/jobs/forwarding_store.h"

namespace coderunner::jobs {
namespace {

using nlohmann::json;
using testutil::MuxFrame;

constexpr const char* kJob = "job-1";
constexpr const char* kCreate = "/containers/create?name=coderunner-job-1";
constexpr const char* kStart = "/containers/c1/start";
constexpr const char* kInspect = "/containers/c1/json";
constexpr const char* kRemove = "/containers/c1?force=1&v=1";
constexpr const char* kCacheKey = "key-1";
constexpr int64_t kOutputCap = 1 << 20;

isolation::PolicySettings Settings() {
  isolation::PolicySettings s;
  s.init_host_path = "/opt/coderunner-init";
  return s;
}

json InspectBody(int exit_code) {
  return {
      {"Id", "c1"},
      {"Image", "sha256:feed"},
      {"HostConfig", {{"Runtime", "runc"}}},
      {"State",
       {{"Status", "exited"}, {"Running", false}, {"ExitCode", exit_code}, {"OOMKilled", false}}}};
}

// A store whose disk is full for a job's terminal move: the first
// `refusals` of them fail as SQLite's SQLITE_FULL does.
class FullDiskStore : public testutil::ForwardingStore {
 public:
  FullDiskStore(store::JobStore& inner, int refusals)
      : ForwardingStore(inner), refusals_(refusals) {}
  Status Transition(const std::string& id, JobStatus to, int64_t at_ms,
                    const std::string& result_json, const std::string& image_digest,
                    const std::string& owner, int64_t artifact_bytes) override {
    if (store::IsTerminal(to)) {
      std::lock_guard<std::mutex> lock(mu_);
      ++terminal_tries_;
      if (refusals_ < 0 || terminal_tries_ <= refusals_) {
        return ResourceExhaustedError("database or disk is full (sqlite 13)", "disk_full");
      }
    }
    return inner_.Transition(id, to, at_ms, result_json, image_digest, owner, artifact_bytes);
  }
  int terminal_tries() const {
    std::lock_guard<std::mutex> lock(mu_);
    return terminal_tries_;
  }

 private:
  const int refusals_;  // -1: every one.
  mutable std::mutex mu_;
  int terminal_tries_ = 0;
};

// A store that counts the reads of a job's record.
class CountingGetStore : public testutil::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  StatusOr<JobRecord> Get(const std::string& id, const std::string& tenant) override {
    ++gets_;
    return inner_.Get(id, tenant);
  }
  int gets() const { return gets_; }

 private:
  std::atomic<int> gets_{0};
};

class JobExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override { Reset(); }
  void TearDown() override { Clear(); }

  // A fresh service: new database, engine, runner, hub and metrics.
  void Reset() {
    Clear();
    char tmpl[] = "/tmp/coderunner-executor-XXXXXX";
    root_ = mkdtemp(tmpl);
    config_ = config::DefaultConfig();
    auto store = store::SqliteJobStore::Open(root_ + "/jobs.db");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    engine_ = std::make_unique<testutil::ScriptedEngine>();
    containers_ = std::make_unique<engine::ContainerClient>(*engine_, std::chrono::seconds(5));
    isolation::RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.uids = &uids_;
    runner_ = std::make_unique<isolation::ContainerRunner>(*containers_, policy_, options);
    hub_ = std::make_unique<JobHub>();
    metrics_ = std::make_unique<MetricsRegistry>();
    DeclareJobMetrics(*metrics_);
  }
  void Clear() {
    runner_.reset();
    containers_.reset();
    engine_.reset();
    store_.reset();
    if (!root_.empty()) std::filesystem::remove_all(root_);
    root_.clear();
  }

  JobExecutorDeps Deps() {
    return JobExecutorDeps{&config_, store_.get(), hub_.get(), runner_.get(), metrics_.get()};
  }

  // Stores job kJob as accepted (queued, with its channel open), as
  // JobService does before a worker picks it up.
  std::shared_ptr<JobChannel> Accept(bool fail_fast,
                                     store::JobStatus status = store::JobStatus::kQueued) {
    store::JobRecord r;
    r.id = kJob;
    r.tenant = "acme";
    r.status = status;
    r.language = "python";
    r.request_json = EncodeStoredRequest(R"json({"code":"print(1)"})json", "", fail_fast, "");
    r.code_sha256 = std::string(64, 'c');
    r.image = "coderunner/python:3.11";
    r.limits_json = "{}";
    r.cache_key = kCacheKey;
    r.created_at_ms = NowMs();
    r.transitions = {{store::JobStatus::kQueued, r.created_at_ms}};
    if (store::IsTerminal(status)) {
      r.finished_at_ms = r.created_at_ms;
      r.transitions.push_back({status, r.created_at_ms});
      r.result_json = "{}";
    }
    auto channel = store::IsTerminal(status) ? nullptr : hub_->Open(kJob, kOutputCap);
    EXPECT_TRUE(store_->Insert({r}).ok());
    return channel;
  }

  // A cold run on the engine: "out\n" on stdout, exit `exit_code`, told
  // by coderunner-init's trailer (with the run's nonce) or only by the
  // engine's state.
  void ScriptRun(int exit_code, bool trailer) {
    engine_->AnswerJson("POST", kCreate, 201, {{"Id", "c1"}});
    engine_->Answer("POST", kStart, 204, "");
    engine_->AnswerJson("GET", kInspect, 200, InspectBody(exit_code));
    engine_->Answer("DELETE", kRemove, 204, "");
    engine_->SetAttachBody([exit_code, trailer](const json& create) {
      std::string body = MuxFrame(1, "out\n");
      if (trailer) {
        body += MuxFrame(2, testutil::InitTrailerLine(
                                {{"exit_code", exit_code}, {"eof", testutil::EofNonceOf(create)}}));
      }
      return body;
    });
  }

  store::JobRecord Stored() {
    auto rec = store_->Get(kJob, "acme");
    EXPECT_TRUE(rec.ok()) << rec.status().ToString();
    return rec.ok() ? *rec : store::JobRecord{};
  }
  bool Cached() {
    auto hit = store_->CacheGet(kCacheKey, NowMs());
    return hit.ok() && hit->has_value();
  }

  std::string root_;
  config::Config config_;
  std::unique_ptr<testutil::ScriptedEngine> engine_;
  std::unique_ptr<engine::ContainerClient> containers_;
  isolation::ContainerPolicy policy_{Settings(), "inst-1"};
  isolation::UidPool uids_{isolation::kDefaultFirstJobUid, 8};
  std::unique_ptr<isolation::ContainerRunner> runner_;
  std::unique_ptr<store::SqliteJobStore> store_;
  std::unique_ptr<JobHub> hub_;
  std::unique_ptr<MetricsRegistry> metrics_;
};

TEST_F(JobExecutorTest, QueuedJobRunsAndEndsWithItsResultStored) {
  struct Case {
    const char* name;
    int exit_code;
    bool trailer;
    store::JobStatus status;
    bool cached;  // Only an end coderunner-init reported is cached.
  };
  const std::vector<Case> cases = {
      {"exit 0 reported by init", 0, true, store::JobStatus::kSucceeded, true},
      {"exit 2 reported by init", 2, true, store::JobStatus::kFailed, true},
      {"exit 0 seen only by the engine", 0, false, store::JobStatus::kSucceeded, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Reset();
    ScriptRun(c.exit_code, c.trailer);
    auto channel = Accept(/*fail_fast=*/false);
    JobExecutor executor(Deps());
    executor.Execute(kJob);

    store::JobRecord rec = Stored();
    EXPECT_EQ(rec.status, c.status);
    EXPECT_EQ(rec.image_digest, "sha256:feed");
    json result = json::parse(rec.result_json);
    EXPECT_EQ(result["id"], kJob);
    EXPECT_EQ(result["status"], std::string(store::JobStatusName(c.status)));
    EXPECT_EQ(result["exit_code"], c.exit_code);
    EXPECT_EQ(result["stdout"], "out\n");
    EXPECT_TRUE(result["error"].is_null());
    EXPECT_EQ(result["cached"], false);
    EXPECT_EQ(Cached(), c.cached);
    // Waiters are woken; the raw result is kept only for /v1/execute.
    EXPECT_TRUE(channel->terminal());
    EXPECT_TRUE(channel->raw_result_json().empty());
    EXPECT_EQ(hub_->Find(kJob), nullptr);
    EXPECT_EQ(engine_->Count("DELETE", kRemove), 1);
    EXPECT_TRUE(executor.Active().empty());
  }
}

TEST_F(JobExecutorTest, UnreachableEngineEndsTheJobAsErrorEngineUnavailable) {
  struct Case {
    const char* name;
    bool fail_fast;          // /v1/execute: no retry, raw result to the caller.
    int64_t engine_retry_s;  // A queued job retries within this bound.
  };
  const std::vector<Case> cases = {
      {"execute fails fast", true, 30},
      {"queued job past its retry window", false, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Reset();
    config_.jobs.engine_retry_s = c.engine_retry_s;
    engine_->FailEverything(UnavailableError("connection refused", "engine_unavailable"));
    auto channel = Accept(c.fail_fast);
    JobExecutor executor(Deps());
    executor.Execute(kJob);

    store::JobRecord rec = Stored();
    EXPECT_EQ(rec.status, store::JobStatus::kError);
    json result = json::parse(rec.result_json);
    EXPECT_EQ(result["status"], "error");
    EXPECT_EQ(result["error"]["code"], "engine_unavailable");
    EXPECT_TRUE(result["exit_code"].is_null());
    EXPECT_FALSE(Cached()) << "an engine failure is never cached";
    EXPECT_TRUE(channel->terminal());
    if (c.fail_fast) {
      json raw = json::parse(channel->raw_result_json());
      EXPECT_EQ(raw["error"]["code"], "engine_unavailable");
    } else {
      EXPECT_TRUE(channel->raw_result_json().empty());
    }
    EXPECT_EQ(engine_->Count("POST", "/containers/start"), 0);
  }
}

TEST_F(JobExecutorTest, JobCancelledWhileQueuedNeverReachesTheEngine) {
  Accept(/*fail_fast=*/false, store::JobStatus::kCancelled);
  JobExecutor executor(Deps());
  executor.Execute(kJob);
  EXPECT_EQ(Stored().status, store::JobStatus::kCancelled);
  EXPECT_TRUE(engine_->Seen().empty());
  EXPECT_TRUE(executor.Active().empty());
}

// Fleet mode. A node whose lease on attempt 1 was lost while the store was
// down cancels that attempt's token (ClaimLoop::Lost); when the same node
// claims attempt 2 its channel, and that token, are the same: attempt 2
// must run, not end "cancelled" at once (seen in CI: PgFleetTest's
// PostgreSQL restart). A token cancelled for this very attempt still
// stops it: the job is then no longer running here in the store.
TEST_F(JobExecutorTest, AnAttemptRunsThoughAnEarlierAttemptsLostLeaseCancelledItsToken) {
  struct Case {
    const char* name;
    bool ended_elsewhere;  // The store no longer has it running here.
    store::JobStatus want;
    bool runs;
  };
  const Case cases[] = {
      {"a cancel for an earlier attempt", false, store::JobStatus::kSucceeded, true},
      {"cancelled for good", true, store::JobStatus::kCancelled, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Reset();
    ScriptRun(0, /*trailer=*/true);
    auto channel = Accept(/*fail_fast=*/false);
    auto claimed = store_->Claim("node-a", 1, NowMs(), 60000);
    ASSERT_TRUE(claimed.ok() && claimed->size() == 1u);
    if (c.ended_elsewhere) {
      ASSERT_TRUE(
          store_->Transition(kJob, store::JobStatus::kCancelled, NowMs(), "{}", "", "", 0).ok());
    }
    channel->cancel_token().Cancel();
    JobExecutorDeps deps = Deps();
    deps.node = "node-a";
    JobExecutor executor(deps);
    executor.Execute(kJob);
    EXPECT_EQ(Stored().status, c.want);
    EXPECT_EQ(!engine_->Seen().empty(), c.runs);
  }
}

// A job handed its record at acceptance (/v1/execute's, on one node) runs
// from it: the store is not asked for the record it was just given. Without
// one (recovered, or queued by id only) the store is read once.
TEST_F(JobExecutorTest, RecordHandedOnTheChannelIsNotReadBackFromTheStore) {
  for (bool handed : {true, false}) {
    SCOPED_TRACE(handed ? "record handed" : "id only");
    Reset();
    ScriptRun(0, /*trailer=*/true);
    auto channel = Accept(/*fail_fast=*/true);
    if (handed) channel->SetAccepted(Stored());
    CountingGetStore counting(*store_);
    JobExecutorDeps deps = Deps();
    deps.store = &counting;
    JobExecutor executor(deps);
    executor.Execute(kJob);

    EXPECT_EQ(counting.gets(), handed ? 0 : 1);
    EXPECT_EQ(Stored().status, store::JobStatus::kSucceeded);
    EXPECT_EQ(json::parse(channel->raw_result_json())["stdout"], "out\n");
  }
}

// A cancel that lands after the record was handed still wins: the job
// never reaches the engine and its waiters hear the cancel.
TEST_F(JobExecutorTest, CancelAfterTheRecordWasHandedStillWins) {
  auto channel = Accept(/*fail_fast=*/true);
  channel->SetAccepted(Stored());
  ASSERT_TRUE(
      store_->Transition(kJob, store::JobStatus::kCancelled, NowMs(), "{}", "", "", 0).ok());
  JobExecutor executor(Deps());
  executor.Execute(kJob);
  EXPECT_EQ(Stored().status, store::JobStatus::kCancelled);
  EXPECT_TRUE(engine_->Seen().empty());
  EXPECT_TRUE(channel->terminal());
  EXPECT_EQ(channel->final_status(), store::JobStatus::kCancelled);
  EXPECT_TRUE(executor.Active().empty());
}

// Issue 30: a result write that failed on a full disk left the job running
// until a restart ran it a second time. The result is offered again until
// the store takes it; only a shutdown meanwhile stops that.
TEST_F(JobExecutorTest, AResultTheStoreCannotTakeIsOfferedAgainUntilItIs) {
  struct Case {
    const char* name;
    int refusals;  // -1: the disk stays full.
    store::JobStatus want;
  };
  const std::vector<Case> cases = {
      {"full for three writes", 3, store::JobStatus::kSucceeded},
      {"full until the shutdown", -1, store::JobStatus::kRunning},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Reset();
    ScriptRun(0, /*trailer=*/true);
    auto channel = Accept(/*fail_fast=*/false);
    FullDiskStore full(*store_, c.refusals);
    JobExecutorDeps deps = Deps();
    deps.store = &full;
    JobExecutor executor(deps);
    std::thread worker([&] { executor.Execute(kJob); });
    if (c.refusals < 0) {
      while (full.terminal_tries() < 3) std::this_thread::yield();
      executor.Shutdown();
    }
    worker.join();

    EXPECT_EQ(Stored().status, c.want);
    if (c.refusals >= 0) {
      EXPECT_EQ(full.terminal_tries(), c.refusals + 1);
      EXPECT_EQ(metrics_->Value("coderunner_result_store_retries_total", {{"reason", "disk_full"}}),
                c.refusals);
      EXPECT_TRUE(channel->terminal());
    }
    EXPECT_TRUE(executor.Active().empty());
  }
}

}  // namespace
}  // namespace coderunner::jobs
