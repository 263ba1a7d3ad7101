// TenantFootprint over a SQLite job store and real artifact directories:
// after a job of a tenant ends, its oldest finished jobs go, record and
// artifacts, until what its tier bounds fits; the executor records each
// job's artifact bytes as the host holds them and applies the rule before
// its waiters wake.
#include "coderunner/jobs/tenant_footprint.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "jobs/job_metrics.h"
#include "unit/temp_dir.h"

namespace coderunner::jobs {
namespace {

constexpr const char* kTier = "small";

void WriteFile(const std::string& path, size_t bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << std::string(bytes, 'a');
}

// What du counts for `dir` and everything below it.
int64_t DuBytes(const std::string& dir) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) return 0;
  int64_t total = static_cast<int64_t>(st.st_blocks) * 512;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (lstat(e.path().c_str(), &st) == 0) total += static_cast<int64_t>(st.st_blocks) * 512;
  }
  return total;
}

class TenantFootprintTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = testutil::MakeTempDir("footprint");
    config_ = config::DefaultConfig();
    config_.artifacts.dir = root_ + "/artifacts";
    config::TierConfig tier;
    tier.name = kTier;
    config_.tiers.push_back(tier);
    config_.auth.keys = {{"acme", kTier, std::string(64, 'a')},
                         {"other", kTier, std::string(64, 'b')}};
    auto store = store::SqliteJobStore::Open(root_ + "/jobs.db");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    DeclareJobMetrics(metrics_);
    footprint_ =
        std::make_unique<TenantFootprint>(TenantFootprintDeps{&config_, store_.get(), &metrics_});
  }
  void TearDown() override {
    footprint_.reset();
    store_.reset();
    std::filesystem::remove_all(root_);
  }

  config::TierConfig& Tier() { return config_.tiers.back(); }
  std::string ArtifactsOf(const std::string& id) { return config_.artifacts.dir + "/" + id; }

  // Job `id` of `tenant`, running since `at_ms`, with a 64 KiB artifact
  // on disk.
  store::JobRecord Running(const std::string& id, const std::string& tenant, int64_t at_ms) {
    store::JobRecord r;
    r.id = id;
    r.tenant = tenant;
    r.request_json = "{}";
    r.created_at_ms = at_ms;
    r.transitions = {{store::JobStatus::kQueued, at_ms}};
    EXPECT_TRUE(store_->Insert({r}).ok());
    EXPECT_TRUE(store_->Transition(id, store::JobStatus::kRunning, at_ms).ok());
    WriteFile(ArtifactsOf(id) + "/out/data.bin", 64 << 10);
    r.status = store::JobStatus::kRunning;
    return r;
  }
  // Running, then ended at `at_ms` + 1 with its artifact bytes recorded.
  void Finished(const std::string& id, const std::string& tenant, int64_t at_ms) {
    Running(id, tenant, at_ms);
    Status s = store_->Transition(id, store::JobStatus::kSucceeded, at_ms + 1, "{}", "", "",
                                  KeptArtifactBytes(config_.artifacts.dir, id));
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  bool Stored(const std::string& id) { return store_->Get(id, "").ok(); }
  bool OnDisk(const std::string& id) { return std::filesystem::exists(ArtifactsOf(id)); }
  double Purges() { return metrics_.Value("coderunner_footprint_purges_total", {{"tier", kTier}}); }

  std::string root_;
  config::Config config_;
  std::unique_ptr<store::JobStore> store_;  // Called through its interface.
  MetricsRegistry metrics_;
  std::unique_ptr<TenantFootprint> footprint_;
};

TEST_F(TenantFootprintTest, KeptArtifactBytesCountAsDuDoesTheDirectoryIncluded) {
  WriteFile(ArtifactsOf("job-1") + "/a.bin", 100000);
  WriteFile(ArtifactsOf("job-1") + "/sub/deeper/b.txt", 1);
  const int64_t got = KeptArtifactBytes(config_.artifacts.dir, "job-1");
  EXPECT_EQ(got, DuBytes(ArtifactsOf("job-1")));
  EXPECT_GE(got, 100000 + 1);
  EXPECT_EQ(KeptArtifactBytes(config_.artifacts.dir, "job-none"), 0);
}

TEST_F(TenantFootprintTest, EnforcePurgesTheOldestFinishedJobsUntilTheTierFits) {
  // Three finished jobs of acme fill its bound; a running one is older
  // than all of them; another tenant of the same tier has one job.
  Running("job-acme-running", "acme", 500);
  Finished("job-acme-1", "acme", 1000);
  Finished("job-acme-2", "acme", 2000);
  Finished("job-acme-3", "acme", 3000);
  Finished("job-other-1", "other", 100);
  const int64_t one = KeptArtifactBytes(config_.artifacts.dir, "job-acme-1");
  Tier().max_retained_artifact_bytes = 3 * one;
  EXPECT_TRUE(footprint_->Enforce("acme").empty());  // Fits exactly.

  // A fourth job passes the bound: the oldest one goes, record and files.
  Finished("job-acme-4", "acme", 4000);
  EXPECT_EQ(footprint_->Enforce("acme"), std::vector<std::string>{"job-acme-1"});
  EXPECT_FALSE(Stored("job-acme-1"));
  EXPECT_FALSE(OnDisk("job-acme-1"));
  EXPECT_EQ(Purges(), 1);

  // The bound lowered to one job's: every finished job but the newest.
  Tier().max_retained_artifact_bytes = one;
  EXPECT_EQ(footprint_->Enforce("acme"), (std::vector<std::string>{"job-acme-2", "job-acme-3"}));
  EXPECT_EQ(Purges(), 3);
  for (const char* kept : {"job-acme-4", "job-acme-running", "job-other-1"}) {
    SCOPED_TRACE(kept);
    EXPECT_TRUE(Stored(kept));
    EXPECT_TRUE(OnDisk(kept));
  }
  auto left = store_->TenantFootprint("acme");
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_EQ(left->artifact_bytes, one);
  EXPECT_EQ(left->jobs, 1);
}

TEST_F(TenantFootprintTest, StoredOutputIsBoundedToo) {
  Finished("job-1", "acme", 1000);
  Finished("job-2", "acme", 2000);
  auto both = store_->TenantFootprint("acme");
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  Tier().max_retained_output_bytes = both->output_bytes - 1;
  EXPECT_EQ(footprint_->Enforce("acme"), std::vector<std::string>{"job-1"});
  EXPECT_FALSE(OnDisk("job-1"));
}

TEST_F(TenantFootprintTest, TheExecutorRecordsArtifactsAndPurgesBeforeItsWaitersWake) {
  JobHub hub;
  JobExecutorDeps deps{&config_, store_.get(), &hub, nullptr, &metrics_};
  deps.footprint = footprint_.get();
  JobExecutor executor(deps);
  Finished("job-old", "acme", 1000);
  const int64_t one = KeptArtifactBytes(config_.artifacts.dir, "job-old");
  Tier().max_retained_artifact_bytes = one;
  store::JobRecord job = Running("job-new", "acme", 2000);
  hub.Open(job.id, 1024);
  bool old_gone_at_wake = false;
  ASSERT_TRUE(executor.Complete(job, store::JobStatus::kSucceeded, "{}", "", "", 2000, [&] {
    old_gone_at_wake = !Stored("job-old") && !OnDisk("job-old");
  }));
  EXPECT_TRUE(old_gone_at_wake);
  auto left = store_->TenantFootprint("acme");
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_EQ(left->artifact_bytes, DuBytes(ArtifactsOf("job-new")));
  EXPECT_EQ(left->jobs, 1);
}

TEST_F(TenantFootprintTest, ARunWhoseJobWasCancelledFirstLeavesNoArtifacts) {
  JobHub hub;
  JobExecutor executor(JobExecutorDeps{&config_, store_.get(), &hub, nullptr, &metrics_});
  store::JobRecord job = Running("job-1", "acme", 1000);
  ASSERT_TRUE(store_->Transition("job-1", store::JobStatus::kCancelled, 1500).ok());
  hub.Open(job.id, 1024);
  EXPECT_FALSE(executor.Complete(job, store::JobStatus::kSucceeded, "{}", "", "", 1000));
  // The cancel's record lists none of them: nobody could fetch them.
  EXPECT_FALSE(OnDisk("job-1"));
  EXPECT_EQ(store_->Get("job-1", "")->status, store::JobStatus::kCancelled);
}

}  // namespace
}  // namespace coderunner::jobs
