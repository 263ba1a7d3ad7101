// A JobService over a scripted engine and a SQLite store in a temporary
// directory: the fixture of the unit tests of the service and of what
// stands on it (the API's event stream).
#ifndef CODERUNNER_TESTS_UNIT_JOBS_JOB_SERVICE_FIXTURE_H_
#define CODERUNNER_TESTS_UNIT_JOBS_JOB_SERVICE_FIXTURE_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "coderunner/engine/containers.h"
#include "coderunner/engine/images.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_clock.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "jobs/job_metrics.h"
#include "unit/isolation/scripted_engine.h"

namespace coderunner::jobs {

class JobServiceFixture : public ::testing::Test {
 protected:
  static isolation::PolicySettings Settings() {
    isolation::PolicySettings s;
    s.init_host_path = "/opt/coderunner-init";
    return s;
  }

  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-jobservice-XXXXXX";
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
    DeclareJobMetrics(metrics_);
  }
  void TearDown() override {
    service_.reset();
    runner_.reset();
    store_.reset();
    std::filesystem::remove_all(root_);
  }

  // The service, built once the test has set config_ and the queue size.
  JobService& Service(size_t queue_capacity = 10) {
    service_.reset();
    queue_ = std::make_unique<JobQueue>(queue_capacity);
    JobServiceDeps deps;
    deps.config = &config_;
    deps.store = store_.get();
    deps.queue = queue_.get();
    deps.hub = &hub_;
    deps.metrics = &metrics_;
    deps.images = images_.get();
    deps.runner = runner_.get();
    deps.containers = containers_.get();
    deps.outbox = store_.get();
    service_ = JobService::Create(deps);
    return *service_;
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
  std::unique_ptr<JobQueue> queue_;
  JobHub hub_;
  MetricsRegistry metrics_;
  std::unique_ptr<JobService> service_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_TESTS_UNIT_JOBS_JOB_SERVICE_FIXTURE_H_
