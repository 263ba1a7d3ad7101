// SqliteJobStore's own behaviour: the file, its modes, WAL, schema version
// and migration, what a damaged file does. The JobStore contract it shares
// with every store is tested by job_store_*contract_test.cc.
#include "coderunner/store/sqlite/sqlite_job_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "job_store_contract.h"
#include "store/sqlite/sqlite_schema.h"
#include "unit/temp_dir.h"

namespace coderunner::store {
namespace {

namespace fs = std::filesystem;
using store::JobRecord;
using store::JobStatus;

// Runs one statement on the database file with a separate raw connection.
void RawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

// The first column of the first row of `sql`, as text.
std::string RawQuery(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return "<open failed>";
  sqlite3_stmt* stmt = nullptr;
  std::string result = "<no row>";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(stmt, 0);
    result = text != nullptr ? reinterpret_cast<const char*>(text) : "<null>";
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return result;
}

class SqliteJobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testutil::MakeTempDir("store");
    path_ = dir_ + "/state/jobs.db";
    Reopen();
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }

  void Reopen() {
    store_.reset();
    auto store = SqliteJobStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }

  void Insert(std::vector<JobRecord> jobs) {
    Status s = store_->Insert(jobs);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  void MoveTo(const std::string& id, JobStatus to, int64_t at_ms) {
    Status s = store_->Transition(id, to, at_ms);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  JobRecord MustGet(const std::string& id) {
    auto job = store_->Get(id, "");
    EXPECT_TRUE(job.ok()) << job.status().ToString();
    return job.ok() ? *job : JobRecord{};
  }

  std::vector<std::string> ListIds(ListFilter filter) {
    std::vector<std::string> ids;
    auto page = store_->List(filter);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) return ids;
    for (const JobRecord& job : page->jobs) ids.push_back(job.id);
    return ids;
  }

  std::string dir_;
  std::string path_;
  std::unique_ptr<JobStore> store_;  // Called through the interface.
};

// --- Open and schema ---------------------------------------------------------

TEST_F(SqliteJobStoreTest, OpenCreatesParentDirectoriesAndTheDatabase) {
  EXPECT_TRUE(fs::is_directory(dir_ + "/state"));
  EXPECT_TRUE(fs::is_regular_file(path_));
}

// The records hold every request (code, stdin, files) and its output: no
// other host user may read them, whatever the umask or an older mode.
TEST_F(SqliteJobStoreTest, DatabaseFilesAreRootsAlone) {
  auto mode = [](const std::string& p) {
    struct stat st;
    return lstat(p.c_str(), &st) == 0 ? (st.st_mode & 07777) : 07777u;
  };
  Insert({MakeJob("job-000000000000000000000001", 1)});
  for (const char* suffix : {"", "-wal", "-shm"}) {
    SCOPED_TRACE(suffix);
    EXPECT_EQ(mode(path_ + suffix), 0600u);
  }
  // A database an older version left world-readable is tightened on open.
  store_.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) chmod((path_ + suffix).c_str(), 0644);
  mode_t old = umask(0);
  auto reopened = SqliteJobStore::Open(path_);
  umask(old);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  for (const char* suffix : {"", "-wal", "-shm"}) {
    SCOPED_TRACE(suffix);
    EXPECT_EQ(mode(path_ + suffix), 0600u);
  }
}

TEST_F(SqliteJobStoreTest, OpenUsesWalAndSetsSchemaVersion) {
  store_.reset();
  EXPECT_EQ(RawQuery(path_, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(RawQuery(path_, "PRAGMA user_version"), std::to_string(kSchemaVersion));
  EXPECT_EQ(RawQuery(path_,
                     "SELECT count(*) FROM sqlite_master WHERE name IN "
                     "('jobs', 'cache', 'jobs_by_tenant_created', 'jobs_by_status', "
                     "'jobs_for_claim', 'jobs_by_lease', 'nodes')"),
            "7");
}

TEST_F(SqliteJobStoreTest, ReopeningKeepsDataAndSchemaVersion) {
  Insert({MakeJob("job-1", 100)});
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    Reopen();
    EXPECT_EQ(MustGet("job-1").id, "job-1");
  }
  store_.reset();
  EXPECT_EQ(RawQuery(path_, "PRAGMA user_version"), std::to_string(kSchemaVersion));
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM jobs"), "1");
}

TEST_F(SqliteJobStoreTest, OpenOfUnopenablePathIsUnavailable) {
  std::ofstream(dir_ + "/a-file") << "x";
  const std::vector<std::string> paths = {
      "/proc/x/db",              // Cannot create the directory.
      dir_ + "/a-file/jobs.db",  // The parent is a regular file.
      dir_,                      // A directory, not a file.
  };
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    auto store = SqliteJobStore::Open(path);
    ASSERT_FALSE(store.ok());
    EXPECT_EQ(store.status().code(), StatusCode::kUnavailable) << store.status().ToString();
    EXPECT_NE(store.status().message().find(path), std::string::npos);
  }
}

TEST_F(SqliteJobStoreTest, OpenOfEmptyPathIsInvalidArgument) {
  auto store = SqliteJobStore::Open("");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SqliteJobStoreTest, OpenOfNonDatabaseFileIsInternal) {
  std::string path = dir_ + "/garbage.db";
  std::ofstream(path) << std::string(8192, 'g');
  auto store = SqliteJobStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kInternal) << store.status().ToString();
  EXPECT_EQ(store.status().reason(), "store_corrupt");
}

TEST_F(SqliteJobStoreTest, OpenOfNewerSchemaIsFailedPrecondition) {
  store_.reset();
  RawExec(path_, "PRAGMA user_version = 99");
  auto store = SqliteJobStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(store.status().reason(), "schema_too_new");
}

// --- Stored rows -------------------------------------------------------------

TEST_F(SqliteJobStoreTest, CorruptStoredTransitionsAreInternalNotAnException) {
  Insert({MakeJob("job-1", 1)});
  store_.reset();
  const std::vector<std::string> bad = {"not json",
                                        "{}",
                                        "[1]",
                                        R"([{"status":"queued"}])",
                                        R"([{"status":"sleeping","at_ms":1}])",
                                        R"([{"status":"queued","at_ms":"1"}])"};
  for (const std::string& transitions : bad) {
    SCOPED_TRACE(transitions);
    store_.reset();
    RawExec(path_, "UPDATE jobs SET transitions = '" + transitions + "'");
    Reopen();
    auto got = store_->Get("job-1", "");
    EXPECT_EQ(got.status().code(), StatusCode::kInternal) << got.status().ToString();
    EXPECT_EQ(got.status().reason(), "store_corrupt");
    Status moved = store_->Transition("job-1", JobStatus::kRunning, 2);
    EXPECT_EQ(moved.code(), StatusCode::kInternal) << moved.ToString();
  }
}

TEST_F(SqliteJobStoreTest, UnknownStoredStatusIsInternal) {
  Insert({MakeJob("job-1", 1)});
  store_.reset();
  RawExec(path_, "UPDATE jobs SET status = 'sleeping'");
  Reopen();
  EXPECT_EQ(store_->Get("job-1", "").status().code(), StatusCode::kInternal);
}

// The contract suite sees purged entries only through the API: here the
// rows themselves are gone.
TEST_F(SqliteJobStoreTest, CachePurgeExpiredDeletesTheRows) {
  ASSERT_TRUE(store_->CachePut("a", "1", 100).ok());
  ASSERT_TRUE(store_->CachePut("b", "2", 200).ok());
  ASSERT_TRUE(store_->CachePut("c", "3", 300).ok());
  auto purged = store_->CachePurgeExpired(200);
  ASSERT_TRUE(purged.ok());
  EXPECT_EQ(*purged, 2);
  store_.reset();
  EXPECT_EQ(RawQuery(path_, "SELECT group_concat(key) FROM cache"), "c");
}

// --- Migration ---------------------------------------------------------------

// The schema as version 1 shipped it.
constexpr const char* kVersion1Schema =
    "CREATE TABLE jobs (id TEXT NOT NULL PRIMARY KEY, tenant TEXT NOT NULL, status TEXT NOT "
    "NULL, language TEXT NOT NULL DEFAULT '', request_json TEXT NOT NULL DEFAULT '', "
    "code_sha256 TEXT NOT NULL DEFAULT '', inputs_sha256 TEXT NOT NULL DEFAULT '', "
    "cache_key TEXT NOT NULL DEFAULT '', image TEXT NOT NULL DEFAULT '', image_digest TEXT "
    "NOT NULL DEFAULT '', limits_json TEXT NOT NULL DEFAULT '', callback_url TEXT NOT NULL "
    "DEFAULT '', replay_of TEXT NOT NULL DEFAULT '', cached INTEGER NOT NULL DEFAULT 0, "
    "attempt INTEGER NOT NULL DEFAULT 1, created_at_ms INTEGER NOT NULL, started_at_ms "
    "INTEGER NOT NULL DEFAULT 0, finished_at_ms INTEGER NOT NULL DEFAULT 0, transitions TEXT "
    "NOT NULL DEFAULT '[]', result_json TEXT NOT NULL DEFAULT ''); CREATE TABLE cache (key "
    "TEXT NOT NULL PRIMARY KEY, result_json TEXT NOT NULL, expires_at_ms INTEGER NOT NULL); ";

TEST_F(SqliteJobStoreTest, MigratesAVersion1DatabaseKeepingItsJobs) {
  store_.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  // Version 1, with one job in it.
  RawExec(path_, std::string(kVersion1Schema) +
                     "INSERT INTO jobs (id, tenant, status, created_at_ms) VALUES ('job-old', "
                     "'default', 'queued', 5); PRAGMA user_version = 1;");
  auto reopened = SqliteJobStore::Open(path_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  store_ = std::move(*reopened);
  JobRecord old = MustGet("job-old");
  EXPECT_EQ(old.kind, "job");
  EXPECT_EQ(old.progress_json, "");
  EXPECT_EQ(old.owner, "");
  EXPECT_EQ(old.lease_expires_at_ms, 0);
  EXPECT_EQ(RawQuery(path_, "PRAGMA user_version"), std::to_string(kSchemaVersion));
}

TEST_F(SqliteJobStoreTest, MigrationCountsTheStoredOutputOfJobsFinishedBefore) {
  store_.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  // Finished before the footprint was kept: its output (multi-byte text
  // counted in bytes) is counted, its artifacts were never measured. A
  // running job counts nothing.
  RawExec(path_, std::string(kVersion1Schema) +
                     "INSERT INTO jobs (id, tenant, status, created_at_ms, finished_at_ms, "
                     "request_json, callback_url, result_json) VALUES ('job-done', 'acme', "
                     "'succeeded', 5, 6, '{\"code\":1}', 'https://x', '\"h\u00e9\"'), "
                     "('job-live', 'acme', 'running', 7, 0, '{}', '', ''); "
                     "PRAGMA user_version = 1;");
  auto reopened = SqliteJobStore::Open(path_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  store_ = std::move(*reopened);
  auto footprint = store_->TenantFootprint("acme");
  ASSERT_TRUE(footprint.ok()) << footprint.status().ToString();
  EXPECT_EQ(footprint->output_bytes, 10 + 9 + 5);  // 5: two quotes, h, and é's two bytes.
  EXPECT_EQ(footprint->artifact_bytes, 0);
  EXPECT_EQ(footprint->jobs, 1);
}

}  // namespace
}  // namespace coderunner::store
