#include "coderunner/jobs/recovery.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "unit/engine/fake_transport.h"
#include "unit/temp_dir.h"

namespace coderunner::jobs {
namespace {

using nlohmann::json;
using testutil::FakeTransport;
using testutil::LoadRecording;
using testutil::Recording;

// The recordings were made with instance "rec"; reusing it lets the list
// path come from a real recording instead of being rebuilt here.
constexpr const char* kInstance = "rec";
const std::string kImageDigest = "sha256:" + std::string(64, '7');
constexpr int64_t kT0 = 1795268514000;

std::string DeletePath(const std::string& cid) { return "/containers/" + cid + "?force=1&v=1"; }

json Labels(const std::string& job) {
  json labels = {{"io.coderunner.managed", "true"}, {"io.coderunner.instance", kInstance}};
  if (!job.empty()) labels["io.coderunner.job"] = job;
  return labels;
}

// One row of GET /containers/json.
json Row(const std::string& cid, const std::string& job, const std::string& state) {
  return {{"Id", cid}, {"State", state}, {"Labels", Labels(job)}};
}

// A GET /containers/{id}/json answer.
json Inspect(const std::string& cid, const std::string& job, const std::string& status,
             int exit_code, bool oom) {
  return {{"Id", cid},
          {"Image", kImageDigest},
          {"State",
           {{"Status", status},
            {"Running", status == "running"},
            {"ExitCode", exit_code},
            {"OOMKilled", oom}}},
          {"Config", {{"Labels", Labels(job)}}}};
}

class RecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testutil::MakeTempDir("recovery");
    config_ = config::DefaultConfig();
    config_.instance = kInstance;
    list_path_ = LoadRecording("docker", "container_list").request.path;
    Reset();
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // A fresh service: new database, engine, queue and hub.
  void Reset() {
    store_.reset();
    auto opened = store::SqliteJobStore::Open(dir_ + "/" + std::to_string(resets_++) + "/jobs.db");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    containers_.reset();
    transport_ = std::make_unique<FakeTransport>();
    containers_ =
        std::make_unique<engine::ContainerClient>(*transport_, std::chrono::milliseconds(1000));
    queue_ = std::make_unique<JobQueue>(10);
    hub_ = std::make_unique<JobHub>();
  }

  RecoveryDeps Deps() {
    return RecoveryDeps{&config_, store_.get(), queue_.get(), hub_.get(), containers_.get()};
  }

  // Inserts a job as it was when the service died.
  void AddJob(const std::string& id, store::JobStatus status, int attempt = 1,
              int64_t created = kT0, const std::string& tenant = "default") {
    store::JobRecord r;
    r.id = id;
    r.tenant = tenant;
    r.status = status;
    r.language = "python";
    r.request_json = EncodeStoredRequest(R"json({"code":"print(1)"})json", "", false, "");
    r.code_sha256 = std::string(64, 'c');
    r.image = "coderunner/python:3.11";
    r.limits_json = "{}";
    r.attempt = attempt;
    r.created_at_ms = created;
    r.transitions = {{store::JobStatus::kQueued, created}};
    if (status != store::JobStatus::kQueued) {
      r.started_at_ms = created + 1;
      r.transitions.push_back({store::JobStatus::kRunning, created + 1});
    }
    if (store::IsTerminal(status)) {
      r.finished_at_ms = created + 2;
      r.transitions.push_back({status, created + 2});
      r.result_json = "{}";
    }
    ASSERT_TRUE(store_->Insert({r}).ok());
  }

  // Scripts the container list and, for each row, DELETE answered 204.
  void ListContainers(const std::vector<json>& rows) {
    transport_->AnswerJson("GET", list_path_, 200, json(rows));
    for (const json& row : rows) {
      transport_->Answer("DELETE", DeletePath(row["Id"].get<std::string>()), 204, "");
    }
  }
  void AnswerInspect(const json& body) {
    transport_->AnswerJson("GET", "/containers/" + body["Id"].get<std::string>() + "/json", 200,
                           body);
  }

  store::JobRecord Get(const std::string& id) {
    auto r = store_->Get(id, "");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : store::JobRecord{};
  }

  std::set<std::string> DeletedContainers() const {
    std::set<std::string> out;
    for (const auto& req : transport_->requests()) {
      if (req.method != "DELETE") continue;
      std::string rest = req.path.substr(std::string("/containers/").size());
      out.insert(rest.substr(0, rest.find('?')));
    }
    return out;
  }

  bool Inspected(const std::string& cid) const {
    for (const auto& req : transport_->requests()) {
      if (req.method == "GET" && req.path == "/containers/" + cid + "/json") return true;
    }
    return false;
  }

  // Everything queued in `q`, in the order workers would get it. Each job is
  // marked done at once, so a tenant's running cap never blocks the drain.
  static std::vector<std::string> Drain(JobQueue& q) {
    std::vector<std::string> out;
    while (q.size() > 0) {
      auto e = q.PopEntry();
      if (!e) break;
      out.push_back(e->id);
      q.Done(e->tenant);
    }
    return out;
  }
  std::vector<std::string> Drain() { return Drain(*queue_); }

  std::string dir_;
  int resets_ = 0;
  config::Config config_;
  std::string list_path_;
  std::unique_ptr<store::SqliteJobStore> store_;
  std::unique_ptr<FakeTransport> transport_;
  std::unique_ptr<engine::ContainerClient> containers_;
  std::unique_ptr<JobQueue> queue_;
  std::unique_ptr<JobHub> hub_;
};

TEST_F(RecoveryTest, NothingToRecoverIsAnEmptyReport) {
  ListContainers({});
  auto report = RecoverJobs(Deps());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->requeued_queued + report->recovered_finished + report->requeued_running +
                report->interrupted + report->orphans_removed,
            0);
  EXPECT_EQ(queue_->size(), 0u);
  EXPECT_EQ(hub_->size(), 0u);
}

TEST_F(RecoveryTest, ListsOnlyThisInstancesManagedContainers) {
  ListContainers({});
  ASSERT_TRUE(RecoverJobs(Deps()).ok());
  std::vector<engine::HttpRequest> reqs = transport_->requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].path, list_path_);
}

TEST_F(RecoveryTest, QueuedJobIsRequeuedWithAnOpenChannel) {
  AddJob("job-q", store::JobStatus::kQueued);
  ListContainers({});
  auto report = RecoverJobs(Deps());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->requeued_queued, 1);
  EXPECT_NE(hub_->Find("job-q"), nullptr);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"job-q"}));
  store::JobRecord r = Get("job-q");
  EXPECT_EQ(r.status, store::JobStatus::kQueued);
  EXPECT_EQ(r.attempt, 1);
  EXPECT_EQ(r.transitions.size(), 1u);
}

TEST_F(RecoveryTest, QueuedJobsAreRequeuedOldestFirstEvenPastTheQueueBound) {
  JobQueue small(1);
  for (int i = 0; i < 4; ++i)
    AddJob("job-" + std::to_string(i), store::JobStatus::kQueued, 1, kT0 + i);
  ListContainers({});
  RecoveryDeps deps = Deps();
  deps.queue = &small;
  auto report = RecoverJobs(deps);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->requeued_queued, 4);
  EXPECT_EQ(Drain(small), (std::vector<std::string>{"job-0", "job-1", "job-2", "job-3"}));
}

TEST_F(RecoveryTest, RunningJobWithExitedContainerTakesItsResultFromTheContainer) {
  struct Case {
    const char* name;
    int exit_code;
    bool oom;
    store::JobStatus want;
  };
  const std::vector<Case> cases = {
      {"exit 0", 0, false, store::JobStatus::kSucceeded},
      {"exit 3", 3, false, store::JobStatus::kFailed},
      {"oom killed", 137, true, store::JobStatus::kOom},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string job = "job-r" + std::to_string(n);
    std::string cid = "c0ffee" + std::to_string(n++);
    Reset();
    AddJob(job, store::JobStatus::kRunning);
    ListContainers({Row(cid, job, "exited")});
    AnswerInspect(Inspect(cid, job, "exited", c.exit_code, c.oom));

    auto report = RecoverJobs(Deps());
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->recovered_finished, 1);
    EXPECT_EQ(report->requeued_running, 0);
    EXPECT_EQ(report->orphans_removed, 0);

    store::JobRecord r = Get(job);
    EXPECT_EQ(r.status, c.want);
    EXPECT_EQ(r.image_digest, kImageDigest);
    EXPECT_GT(r.finished_at_ms, 0);
    ASSERT_FALSE(r.transitions.empty());
    EXPECT_EQ(r.transitions.back().status, c.want);
    json result = json::parse(r.result_json, nullptr, false);
    ASSERT_TRUE(result.is_object()) << r.result_json;
    EXPECT_EQ(result["status"], store::JobStatusName(c.want));
    EXPECT_EQ(result["exit_code"], c.exit_code);
    EXPECT_EQ(result["recovered"], true);
    EXPECT_EQ(result["output_lost"], true);
    EXPECT_EQ(result["id"], job);
    EXPECT_EQ(result["image_digest"], kImageDigest);
    EXPECT_EQ(result["stdout"], "");
    EXPECT_EQ(result["stderr"], "");

    EXPECT_EQ(DeletedContainers(), std::set<std::string>{cid});
    EXPECT_EQ(queue_->size(), 0u);
    EXPECT_EQ(hub_->Find(job), nullptr);
  }
}

TEST_F(RecoveryTest, RecordedExitedContainerOfBothEnginesFinishesTheJob) {
  for (const char* engine : {"docker", "podman"}) {
    SCOPED_TRACE(engine);
    Reset();
    AddJob("job-rec", store::JobStatus::kRunning);
    Recording list = transport_->Replay(engine, "container_list");
    ASSERT_EQ(list.request.path, list_path_);
    Recording inspect = transport_->Replay(engine, "container_inspect_exited");
    std::string cid = list.body[0]["Id"];
    transport_->Answer("DELETE", DeletePath(cid), 204, "");

    auto report = RecoverJobs(Deps());
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->recovered_finished, 1);
    store::JobRecord r = Get("job-rec");
    EXPECT_EQ(r.status, store::JobStatus::kFailed);
    EXPECT_EQ(r.image_digest, inspect.body["Image"].get<std::string>());
    json result = json::parse(r.result_json);
    EXPECT_EQ(result["exit_code"], 3);
    EXPECT_EQ(result["recovered"], true);
    EXPECT_EQ(result["output_lost"], true);
    EXPECT_EQ(DeletedContainers(), std::set<std::string>{cid});
  }
}

TEST_F(RecoveryTest, RunningJobWithRunningContainerIsKilledAndRequeuedAsAttempt2) {
  AddJob("job-run", store::JobStatus::kRunning);
  ListContainers({Row("cafe01", "job-run", "running")});
  AnswerInspect(Inspect("cafe01", "job-run", "running", 0, false));
  auto report = RecoverJobs(Deps());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->requeued_running, 1);
  EXPECT_EQ(report->recovered_finished, 0);
  EXPECT_EQ(report->orphans_removed, 0);
  EXPECT_EQ(DeletedContainers(), std::set<std::string>{"cafe01"});
  store::JobRecord r = Get("job-run");
  EXPECT_EQ(r.status, store::JobStatus::kQueued);
  EXPECT_EQ(r.attempt, 2);
  ASSERT_FALSE(r.transitions.empty());
  EXPECT_EQ(r.transitions.back().status, store::JobStatus::kQueued);
  EXPECT_EQ(r.result_json, "");
  EXPECT_NE(hub_->Find("job-run"), nullptr);
  EXPECT_EQ(Drain(), (std::vector<std::string>{"job-run"}));
}

TEST_F(RecoveryTest, RunningJobWhoseContainerNeverStartedIsRequeued) {
  AddJob("job-c", store::JobStatus::kRunning);
  ListContainers({Row("cafe02", "job-c", "created")});
  AnswerInspect(Inspect("cafe02", "job-c", "created", 0, false));
  auto report = RecoverJobs(Deps());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->requeued_running, 1);
  EXPECT_EQ(DeletedContainers(), std::set<std::string>{"cafe02"});
  EXPECT_EQ(Get("job-c").status, store::JobStatus::kQueued);
}

TEST_F(RecoveryTest, RunningJobWithoutContainerIsRequeuedAsAttempt2) {
  AddJob("job-gone", store::JobStatus::kRunning);
  ListContainers({});
  auto report = RecoverJobs(Deps());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->requeued_running, 1);
  store::JobRecord r = Get("job-gone");
  EXPECT_EQ(r.status, store::JobStatus::kQueued);
  EXPECT_EQ(r.attempt, 2);
  EXPECT_TRUE(DeletedContainers().empty());
  EXPECT_EQ(Drain(), (std::vector<std::string>{"job-gone"}));
}

TEST_F(RecoveryTest, SecondInterruptionEndsAsErrorInterrupted) {
  struct Case {
    const char* name;
    bool has_container;
  };
  int n = 0;
  for (const Case& c : {Case{"no container", false}, Case{"container still running", true}}) {
    SCOPED_TRACE(c.name);
    std::string job = "job-twice" + std::to_string(n);
    std::string cid = "beef0" + std::to_string(n++);
    Reset();
    AddJob(job, store::JobStatus::kRunning, /*attempt=*/2);
    if (c.has_container) {
      ListContainers({Row(cid, job, "running")});
      AnswerInspect(Inspect(cid, job, "running", 0, false));
    } else {
      ListContainers({});
    }
    auto report = RecoverJobs(Deps());
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->interrupted, 1);
    EXPECT_EQ(report->requeued_running, 0);

    store::JobRecord r = Get(job);
    EXPECT_EQ(r.status, store::JobStatus::kError);
    EXPECT_EQ(r.attempt, 2);
    EXPECT_GT(r.finished_at_ms, 0);
    json result = json::parse(r.result_json, nullptr, false);
    ASSERT_TRUE(result.is_object()) << r.result_json;
    EXPECT_EQ(result["status"], "error");
    EXPECT_EQ(result["error"]["code"], "interrupted");
    EXPECT_EQ(result["id"], job);
    EXPECT_EQ(queue_->size(), 0u);
    EXPECT_EQ(hub_->Find(job), nullptr);
    EXPECT_EQ(DeletedContainers(),
              c.has_container ? std::set<std::string>{cid} : std::set<std::string>{});
  }
}

TEST_F(RecoveryTest, ContainersNoLiveJobOwnsAreRemoved) {
  AddJob("job-done", store::JobStatus::kSucceeded);
  ListContainers({
      Row("aaaa01", "job-unknown", "exited"),
      Row("aaaa02", "job-done", "exited"),  // Terminal job: nothing to recover.
      Row("aaaa03", "", "running"),         // No job label at all.
  });
  auto report = RecoverJobs(Deps());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->orphans_removed, 3);
  EXPECT_EQ(DeletedContainers(), (std::set<std::string>{"aaaa01", "aaaa02", "aaaa03"}));
  // Nothing was inspected: they are removed unread.
  EXPECT_FALSE(Inspected("aaaa01"));
  EXPECT_EQ(Get("job-done").status, store::JobStatus::kSucceeded);
  EXPECT_EQ(queue_->size(), 0u);
}

TEST_F(RecoveryTest, LeftoverContainerOfAQueuedJobIsRemovedAndTheJobRequeued) {
  AddJob("job-q", store::JobStatus::kQueued);
  ListContainers({Row("dddd01", "job-q", "created")});
  auto report = RecoverJobs(Deps());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->requeued_queued, 1);
  EXPECT_EQ(DeletedContainers(), std::set<std::string>{"dddd01"});
  EXPECT_EQ(Drain(), (std::vector<std::string>{"job-q"}));
}

TEST_F(RecoveryTest, MixedStartupRecoversEachJobItsOwnWay) {
  AddJob("job-a", store::JobStatus::kQueued, 1, kT0 + 1, "t1");
  AddJob("job-b", store::JobStatus::kRunning, 1, kT0 + 2, "t1");  // Exited: finished.
  AddJob("job-c", store::JobStatus::kRunning, 1, kT0 + 3, "t2");  // Running: re-queued.
  AddJob("job-d", store::JobStatus::kRunning, 2, kT0 + 4, "t2");  // Gone, 2nd time: error.
  AddJob("job-e", store::JobStatus::kFailed, 1, kT0 + 5, "t1");   // Terminal: untouched.
  ListContainers({Row("bbbb01", "job-b", "exited"), Row("cccc01", "job-c", "running"),
                  Row("eeee01", "job-x", "exited")});
  AnswerInspect(Inspect("bbbb01", "job-b", "exited", 0, false));
  AnswerInspect(Inspect("cccc01", "job-c", "running", 0, false));
  auto report = RecoverJobs(Deps());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->requeued_queued, 1);
  EXPECT_EQ(report->recovered_finished, 1);
  EXPECT_EQ(report->requeued_running, 1);
  EXPECT_EQ(report->interrupted, 1);
  EXPECT_EQ(report->orphans_removed, 1);
  EXPECT_EQ(Get("job-a").status, store::JobStatus::kQueued);
  EXPECT_EQ(Get("job-b").status, store::JobStatus::kSucceeded);
  EXPECT_EQ(Get("job-c").status, store::JobStatus::kQueued);
  EXPECT_EQ(Get("job-d").status, store::JobStatus::kError);
  EXPECT_EQ(Get("job-e").status, store::JobStatus::kFailed);
  EXPECT_EQ(DeletedContainers(), (std::set<std::string>{"bbbb01", "cccc01", "eeee01"}));
  // Round-robin over t1 and t2, each oldest first.
  EXPECT_EQ(Drain(), (std::vector<std::string>{"job-a", "job-c"}));
  EXPECT_EQ(hub_->size(), 2u);
}

TEST_F(RecoveryTest, UnreachableEngineRequeuesQueuedJobsAndLeavesInterruptedOnes) {
  AddJob("job-q", store::JobStatus::kQueued);
  AddJob("job-r", store::JobStatus::kRunning);
  transport_->FailEverything(UnavailableError("connect: no such file", "engine_unavailable"));
  auto report = RecoverJobs(Deps());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kUnavailable);
  // Phase 1 needs only the store: the queued job is queued again and both
  // jobs have channels (so /wait blocks); the interrupted one waits for the
  // engine, unchanged.
  EXPECT_EQ(queue_->size(), 1u);
  EXPECT_EQ(hub_->size(), 2u);
  EXPECT_EQ(Get("job-q").status, store::JobStatus::kQueued);
  store::JobRecord r = Get("job-r");
  EXPECT_EQ(r.status, store::JobStatus::kRunning);
  EXPECT_EQ(r.attempt, 1);
}

}  // namespace
}  // namespace coderunner::jobs
