// JobEventStream (GET /v1/jobs/{id}/events) over a JobService on a SQLite
// job store and the fake engine, without workers: what each write holds.
#include "api/job_event_stream.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "api/final_records.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/store/sqlite_job_store.h"
#include "coderunner/wire/job_submission.h"
#include "jobs/job_metrics.h"
#include "unit/isolation/scripted_engine.h"

namespace coderunner::api {
namespace {

isolation::PolicySettings Settings() {
  isolation::PolicySettings s;
  s.init_host_path = "/opt/coderunner-init";
  return s;
}

class JobEventStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-eventstream-XXXXXX";
    root_ = mkdtemp(tmpl);
    config_ = config::DefaultConfig();
    config_.jobs.cache_ttl_s = 0;
    auto store = store::SqliteJobStore::Open(root_ + "/jobs.db");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    engine_ = std::make_unique<testutil::ScriptedEngine>();
    containers_ = std::make_unique<engine::ContainerClient>(*engine_, std::chrono::seconds(5));
    images_ = std::make_unique<engine::ImageClient>(*engine_, std::chrono::seconds(5));
    isolation::RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.uids = &uids_;
    runner_ = std::make_unique<isolation::ContainerRunner>(*containers_, policy_, options);
    jobs::DeclareJobMetrics(metrics_);
    jobs::JobServiceDeps deps;
    deps.config = &config_;
    deps.store = store_.get();
    deps.queue = &queue_;
    deps.hub = &hub_;
    deps.metrics = &metrics_;
    deps.images = images_.get();
    deps.runner = runner_.get();
    deps.containers = containers_.get();
    service_ = std::make_unique<jobs::JobService>(deps);
  }
  void TearDown() override {
    service_.reset();
    runner_.reset();
    store_.reset();
    std::filesystem::remove_all(root_);
  }

  // What one WriteNext call of `stream` wrote (all its pieces); "" if it
  // returned false.
  static std::string OneWrite(JobEventStream& stream) {
    std::string written;
    httplib::DataSink sink;
    sink.write = [&](const char* data, size_t n) {
      written.append(data, n);
      return true;
    };
    sink.done = [] {};
    sink.is_writable = [] { return true; };
    return stream.WriteNext(sink) ? written : "";
  }

  std::string root_;
  config::Config config_;
  std::unique_ptr<store::SqliteJobStore> store_;
  std::unique_ptr<testutil::ScriptedEngine> engine_;
  std::unique_ptr<engine::ContainerClient> containers_;
  std::unique_ptr<engine::ImageClient> images_;
  isolation::ContainerPolicy policy_{Settings(), "inst-1"};
  isolation::UidPool uids_{isolation::kDefaultFirstJobUid, 8};
  std::unique_ptr<isolation::ContainerRunner> runner_;
  jobs::JobQueue queue_{10};
  jobs::JobHub hub_;
  MetricsRegistry metrics_;
  std::unique_ptr<jobs::JobService> service_;
  FinalRecords finals_;
};

// The first write is the `state` event on its own, even when the channel
// already has more: a client subscribing to a job that waits in the queue
// learns its state at once, not with the job's first event (or a
// keep-alive 15 s later). What the channel has comes with the next write.
TEST_F(JobEventStreamTest, TheStateEventIsAWriteOfItsOwn) {
  auto submission =
      wire::ParseJobSubmission(R"json({"code":"print(1)"})json", service_->submission_rules());
  ASSERT_TRUE(submission.ok()) << submission.status().ToString();
  auto accepted = service_->Submit("acme", std::move(*submission), nullptr);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
  ASSERT_NE(accepted->channel, nullptr);
  accepted->channel->PublishOutput(false, "early\n");
  JobEventStream stream(*service_, finals_, accepted->record.id, "acme", accepted->channel);

  std::string first = OneWrite(stream);
  EXPECT_EQ(first.rfind("event: state\ndata: ", 0), 0u) << first;
  EXPECT_NE(first.find(R"("status":"queued")"), std::string::npos) << first;
  EXPECT_EQ(first.find("event: stdout"), std::string::npos) << first;

  std::string second = OneWrite(stream);
  EXPECT_EQ(second, "event: stdout\ndata: {\"data\":\"early\\n\"}\n\n");
}

}  // namespace
}  // namespace coderunner::api
