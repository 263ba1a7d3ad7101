// JobJanitor::RunOnce over a real SQLite store, real directories and the
// fake engine transport: what it removes, and what it must leave to a job
// still executing, its compile step included.
#include "jobs/job_janitor.h"

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
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "unit/engine/fake_transport.h"
#include "unit/temp_dir.h"

namespace coderunner::jobs {
namespace {

using nlohmann::json;
using testutil::FakeTransport;
using testutil::LoadRecording;

// The recordings were made with instance "rec", so the list path comes from
// a real recording.
constexpr const char* kInstance = "rec";
constexpr const char* kExecuting = "job-a";  // Executing: compiling right now.
constexpr const char* kStored = "job-c";     // Finished, kept in the store.
constexpr int64_t kT0 = 1795268514000;

// A container of this instance labelled with job `job`.
json Row(const std::string& cid, const std::string& job) {
  return {{"Id", cid},
          {"State", "running"},
          {"Labels",
           {{"io.coderunner.managed", "true"},
            {"io.coderunner.instance", kInstance},
            {"io.coderunner.job", job}}}};
}

class JobJanitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testutil::MakeTempDir("janitor");
    config_ = config::DefaultConfig();
    config_.instance = kInstance;
    config_.workspace_dir = dir_ + "/workspaces";
    config_.artifacts.dir = dir_ + "/artifacts";
    std::filesystem::create_directories(config_.workspace_dir);
    std::filesystem::create_directories(config_.artifacts.dir);
    auto opened = store::SqliteJobStore::Open(dir_ + "/jobs.db");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    containers_ = std::make_unique<engine::ContainerClient>(transport_, std::chrono::seconds(1));
    AddFinishedJob(kStored);
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void AddFinishedJob(const std::string& id) {
    store::JobRecord r;
    r.id = id;
    r.tenant = "default";
    r.status = store::JobStatus::kSucceeded;
    r.language = "cpp";
    r.request_json = "{}";
    r.code_sha256 = std::string(64, 'c');
    r.image = "coderunner/gcc:12";
    r.limits_json = "{}";
    r.attempt = 1;
    r.created_at_ms = kT0;
    r.finished_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    r.transitions = {{store::JobStatus::kQueued, kT0}};
    r.result_json = "{}";
    ASSERT_TRUE(store_->Insert({r}).ok());
  }

  JanitorReport RunOnce() {
    JobJanitor janitor({&config_, store_.get(), containers_.get(), nullptr},
                       [] { return std::set<std::string>{kExecuting}; });
    return janitor.RunOnce();
  }

  std::string dir_;
  config::Config config_;
  std::unique_ptr<store::SqliteJobStore> store_;
  FakeTransport transport_;
  std::unique_ptr<engine::ContainerClient> containers_;
};

// One directory the janitor finds under workspace_dir or artifacts.dir.
struct Leftover {
  const char* root;  // "workspaces" or "artifacts".
  const char* name;
  bool kept;
  const char* why;
};

TEST_F(JobJanitorTest, ACompileStepIsItsJobsAndOnlyOrphansGo) {
  const std::vector<Leftover> table = {
      {"workspaces", "job-a", true, "the executing job's"},
      {"workspaces", "job-a-compile", true, "the executing job's compile step"},
      {"workspaces", "job-b", false, "no job executes"},
      {"workspaces", "job-b-compile", false, "a compile step of no executing job"},
      {"workspaces", "job-c-compile", false, "a workspace of a job done with it"},
      {"artifacts", "job-a-compile", true, "the compile step's /output, read next"},
      {"artifacts", "job-b-compile", false, "a step of a job the store does not know"},
      {"artifacts", "job-c-compile", true, "a step of a job the store still holds"},
      {"artifacts", "job-c", true, "a stored job's artifacts"},
      {"artifacts", "keep-me", true, "not a job's"},
  };
  for (const Leftover& row : table) {
    std::filesystem::create_directories(dir_ + "/" + row.root + "/" + row.name + "/build");
  }
  const std::string list_path = LoadRecording("docker", "container_list").request.path;
  transport_.AnswerJson("GET", list_path, 200,
                        json::array({Row("c-a", "job-a-compile"), Row("c-b", "job-b-compile")}));
  transport_.Answer("DELETE", "/containers/c-b?force=1&v=1", 204, "");

  JanitorReport report = RunOnce();

  for (const Leftover& row : table) {
    EXPECT_EQ(std::filesystem::exists(dir_ + "/" + row.root + "/" + row.name), row.kept)
        << row.root << "/" << row.name << ": " << row.why;
  }
  std::vector<std::string> deleted;
  for (const auto& request : transport_.requests()) {
    if (request.method == "DELETE") deleted.push_back(request.path);
  }
  EXPECT_EQ(deleted, std::vector<std::string>{"/containers/c-b?force=1&v=1"})
      << "the running compile step's container c-a stays";
  EXPECT_EQ(report.containers_removed, 1);
  EXPECT_EQ(report.workspaces_removed, 3);
  EXPECT_EQ(report.artifacts_removed, 1);
}

}  // namespace
}  // namespace coderunner::jobs
