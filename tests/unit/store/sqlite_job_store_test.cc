#include "coderunner/store/sqlite_job_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace coderunner::store {
namespace {

namespace fs = std::filesystem;
using store::JobRecord;
using store::JobStatus;

constexpr JobStatus kTerminalStatuses[] = {JobStatus::kSucceeded, JobStatus::kFailed,
                                           JobStatus::kTimeout,   JobStatus::kOom,
                                           JobStatus::kCancelled, JobStatus::kError};
constexpr JobStatus kAllStatuses[] = {
    JobStatus::kQueued,  JobStatus::kRunning, JobStatus::kSucceeded, JobStatus::kFailed,
    JobStatus::kTimeout, JobStatus::kOom,     JobStatus::kCancelled, JobStatus::kError};

constexpr const char* kRequestJson = R"json({"code":"print(1)"})json";

std::string MakeTempDir() {
  std::string tmpl = ::testing::TempDir() + "/coderunner-store-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  char* dir = mkdtemp(buf.data());
  if (dir == nullptr) throw std::runtime_error("mkdtemp failed");
  return dir;
}

// A queued job as the API would insert it.
JobRecord MakeJob(const std::string& id, int64_t created_at_ms,
                  const std::string& tenant = "default") {
  JobRecord job;
  job.id = id;
  job.tenant = tenant;
  job.status = JobStatus::kQueued;
  job.language = "python";
  job.request_json = kRequestJson;
  job.created_at_ms = created_at_ms;
  job.transitions = {{JobStatus::kQueued, created_at_ms}};
  return job;
}

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
    dir_ = MakeTempDir();
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

void ExpectSameTransitions(const std::vector<store::Transition>& got,
                           const std::vector<store::Transition>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got[i].status, want[i].status);
    EXPECT_EQ(got[i].at_ms, want[i].at_ms);
  }
}

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
  EXPECT_EQ(RawQuery(path_, "PRAGMA user_version"), "2");
  EXPECT_EQ(RawQuery(path_,
                     "SELECT count(*) FROM sqlite_master WHERE name IN "
                     "('jobs', 'cache', 'jobs_by_tenant_created', 'jobs_by_status')"),
            "4");
}

TEST_F(SqliteJobStoreTest, ReopeningKeepsDataAndSchemaVersion) {
  Insert({MakeJob("job-1", 100)});
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    Reopen();
    EXPECT_EQ(MustGet("job-1").id, "job-1");
  }
  store_.reset();
  EXPECT_EQ(RawQuery(path_, "PRAGMA user_version"), "2");
  EXPECT_EQ(RawQuery(path_, "SELECT count(*) FROM jobs"), "1");
}

TEST_F(SqliteJobStoreTest, WritesSurviveClosingAndReopening) {
  JobRecord job = MakeJob("job-durable", 100);
  Insert({job});
  MoveTo("job-durable", JobStatus::kRunning, 200);
  ASSERT_TRUE(store_
                  ->Transition("job-durable", JobStatus::kSucceeded, 300, R"({"exit_code":0})",
                               "sha256:abc")
                  .ok());
  ASSERT_TRUE(store_->CachePut("key-1", R"({"cached":true})", 1000).ok());
  store_.reset();  // Close.

  auto reopened = SqliteJobStore::Open(path_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto got = (*reopened)->Get("job-durable", "default");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->status, JobStatus::kSucceeded);
  EXPECT_EQ(got->result_json, R"({"exit_code":0})");
  EXPECT_EQ(got->image_digest, "sha256:abc");
  EXPECT_EQ(got->started_at_ms, 200);
  EXPECT_EQ(got->finished_at_ms, 300);
  ExpectSameTransitions(
      got->transitions,
      {{JobStatus::kQueued, 100}, {JobStatus::kRunning, 200}, {JobStatus::kSucceeded, 300}});
  auto cached = (*reopened)->CacheGet("key-1", 500);
  ASSERT_TRUE(cached.ok()) << cached.status().ToString();
  EXPECT_EQ(cached->value_or("<none>"), R"({"cached":true})");
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

// --- Insert and Get -----------------------------------------------------------

TEST_F(SqliteJobStoreTest, InsertThenGetRoundTripsEveryField) {
  JobRecord job;
  job.id = "job-0123456789abcdef01234567";
  job.tenant = "acme";
  job.status = JobStatus::kFailed;
  job.language = "cpp";
  job.request_json = R"({"code":"int main(){}","stdin":"a'b\"c; DROP TABLE jobs;--"})";
  job.code_sha256 = std::string(64, 'a');
  job.inputs_sha256 = std::string(64, 'b');
  job.cache_key = "ck-1";
  job.image = "gcc:13";
  job.image_digest = "sha256:0123";
  job.limits_json = R"({"wall_ms":5000})";
  job.callback_url = "https://example.com/hook?x=1&y=2";
  job.replay_of = "job-original";
  job.cached = true;
  job.attempt = 2;
  job.created_at_ms = 1700000000000;
  job.started_at_ms = 1700000000100;
  job.finished_at_ms = 1700000000200;
  job.transitions = {{JobStatus::kQueued, 1700000000000},
                     {JobStatus::kRunning, 1700000000100},
                     {JobStatus::kQueued, 1700000000150},
                     {JobStatus::kFailed, 1700000000200}};
  job.result_json = "{\"stdout\":\"h\\u00e9llo \xe2\x9c\x93\"}";
  Insert({job});

  auto got = store_->Get(job.id, "acme");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->id, job.id);
  EXPECT_EQ(got->tenant, job.tenant);
  EXPECT_EQ(got->status, job.status);
  EXPECT_EQ(got->language, job.language);
  EXPECT_EQ(got->request_json, job.request_json);
  EXPECT_EQ(got->code_sha256, job.code_sha256);
  EXPECT_EQ(got->inputs_sha256, job.inputs_sha256);
  EXPECT_EQ(got->cache_key, job.cache_key);
  EXPECT_EQ(got->image, job.image);
  EXPECT_EQ(got->image_digest, job.image_digest);
  EXPECT_EQ(got->limits_json, job.limits_json);
  EXPECT_EQ(got->callback_url, job.callback_url);
  EXPECT_EQ(got->replay_of, job.replay_of);
  EXPECT_EQ(got->cached, job.cached);
  EXPECT_EQ(got->attempt, job.attempt);
  EXPECT_EQ(got->created_at_ms, job.created_at_ms);
  EXPECT_EQ(got->started_at_ms, job.started_at_ms);
  EXPECT_EQ(got->finished_at_ms, job.finished_at_ms);
  ExpectSameTransitions(got->transitions, job.transitions);
  EXPECT_EQ(got->result_json, job.result_json);
}

TEST_F(SqliteJobStoreTest, InsertKeepsEmptyFieldsAndDefaults) {
  JobRecord job;
  job.id = "job-minimal";
  Insert({job});
  JobRecord got = MustGet("job-minimal");
  EXPECT_EQ(got.tenant, "default");
  EXPECT_EQ(got.status, JobStatus::kQueued);
  EXPECT_EQ(got.attempt, 1);
  EXPECT_FALSE(got.cached);
  EXPECT_TRUE(got.transitions.empty());
  EXPECT_EQ(got.request_json, "");
  EXPECT_EQ(got.result_json, "");
}

TEST_F(SqliteJobStoreTest, InsertOfEmptyBatchIsOk) { EXPECT_TRUE(store_->Insert({}).ok()); }

TEST_F(SqliteJobStoreTest, InsertOfJobWithoutIdIsInvalidArgument) {
  Status s = store_->Insert({MakeJob("", 1)});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST_F(SqliteJobStoreTest, InsertOfExistingIdIsAlreadyExistsAndInsertsNothing) {
  Insert({MakeJob("job-existing", 1)});
  struct Case {
    const char* name;
    std::vector<JobRecord> batch;
  };
  const std::vector<Case> cases = {
      {"existing id last", {MakeJob("job-new-1", 2), MakeJob("job-existing", 3)}},
      {"existing id first", {MakeJob("job-existing", 3), MakeJob("job-new-1", 2)}},
      {"duplicate within batch",
       {MakeJob("job-new-1", 2), MakeJob("job-new-2", 2), MakeJob("job-new-1", 4)}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = store_->Insert(c.batch);
    EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.ToString();
    for (const JobRecord& job : c.batch) {
      if (job.id == "job-existing") continue;
      EXPECT_EQ(store_->Get(job.id, "").status().code(), StatusCode::kNotFound) << job.id;
    }
    EXPECT_EQ(MustGet("job-existing").created_at_ms, 1);  // Not overwritten.
  }
  // The store still accepts writes afterwards.
  Insert({MakeJob("job-new-1", 2), MakeJob("job-new-2", 2)});
}

TEST_F(SqliteJobStoreTest, GetIsScopedByTenant) {
  Insert({MakeJob("job-acme", 1, "acme")});
  struct Case {
    std::string tenant;
    StatusCode code;
  };
  const std::vector<Case> cases = {
      {"", StatusCode::kOk},
      {"acme", StatusCode::kOk},
      {"other", StatusCode::kNotFound},
      {"default", StatusCode::kNotFound},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tenant);
    auto got = store_->Get("job-acme", c.tenant);
    EXPECT_EQ(got.status().code(), c.code);
    if (!got.ok()) {
      EXPECT_EQ(got.status().reason(), "job_not_found");
    }
  }
}

TEST_F(SqliteJobStoreTest, GetOfUnknownIdIsNotFound) {
  auto got = store_->Get("job-nope", "");
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(got.status().reason(), "job_not_found");
}

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

// --- Transition ---------------------------------------------------------------

// The redactor sees each record's request and callback URL once, as it
// becomes terminal (or is inserted terminal); a live job keeps its own.
TEST_F(SqliteJobStoreTest, RequestsAreRedactedExactlyWhenTheyBecomeTerminal) {
  store_.reset();
  int calls = 0;
  auto opened = SqliteJobStore::Open(path_, [&calls](std::string& request, std::string& url) {
    ++calls;
    request = R"({"redacted":true})";
    url = "https://h/[REDACTED]";
  });
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  store_ = std::move(*opened);
  JobRecord live = MakeJob("job-000000000000000000000001", 1);
  live.callback_url = "https://h/?sig=1";
  JobRecord cached = MakeJob("job-000000000000000000000002", 1);
  cached.status = JobStatus::kSucceeded;
  cached.callback_url = "https://h/?sig=2";
  Insert({live, cached});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(store_->Get(live.id)->request_json, kRequestJson);
  EXPECT_EQ(store_->Get(live.id)->callback_url, "https://h/?sig=1");
  EXPECT_EQ(store_->Get(cached.id)->request_json, R"({"redacted":true})");
  EXPECT_EQ(store_->Get(cached.id)->callback_url, "https://h/[REDACTED]");
  ASSERT_TRUE(store_->Transition(live.id, JobStatus::kRunning, 2).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(store_->Get(live.id)->request_json, kRequestJson);
  ASSERT_TRUE(store_->Transition(live.id, JobStatus::kFailed, 3, R"({"x":1})").ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(store_->Get(live.id)->request_json, R"({"redacted":true})");
  EXPECT_EQ(store_->Get(live.id)->callback_url, "https://h/[REDACTED]");
  EXPECT_EQ(store_->Get(live.id)->result_json, R"({"x":1})");
}

TEST_F(SqliteJobStoreTest, TransitionQueuedToRunningSetsStartedAt) {
  Insert({MakeJob("job-1", 100)});
  MoveTo("job-1", JobStatus::kRunning, 150);
  JobRecord job = MustGet("job-1");
  EXPECT_EQ(job.status, JobStatus::kRunning);
  EXPECT_EQ(job.started_at_ms, 150);
  EXPECT_EQ(job.finished_at_ms, 0);
  EXPECT_EQ(job.result_json, "");
  ExpectSameTransitions(job.transitions, {{JobStatus::kQueued, 100}, {JobStatus::kRunning, 150}});
}

TEST_F(SqliteJobStoreTest, TransitionRunningToTerminalSetsFinishedAtResultAndDigest) {
  int n = 0;
  for (JobStatus to : kTerminalStatuses) {
    SCOPED_TRACE(std::string(store::JobStatusName(to)));
    std::string id = "job-" + std::to_string(n++);
    Insert({MakeJob(id, 100)});
    MoveTo(id, JobStatus::kRunning, 150);
    Status s = store_->Transition(id, to, 300, R"({"status":"x"})", "sha256:feed");
    ASSERT_TRUE(s.ok()) << s.ToString();
    JobRecord job = MustGet(id);
    EXPECT_EQ(job.status, to);
    EXPECT_EQ(job.started_at_ms, 150);
    EXPECT_EQ(job.finished_at_ms, 300);
    EXPECT_EQ(job.result_json, R"({"status":"x"})");
    EXPECT_EQ(job.image_digest, "sha256:feed");
    ExpectSameTransitions(job.transitions,
                          {{JobStatus::kQueued, 100}, {JobStatus::kRunning, 150}, {to, 300}});
  }
}

TEST_F(SqliteJobStoreTest, TransitionWithEmptyResultAndDigestKeepsStoredOnes) {
  JobRecord job = MakeJob("job-1", 100);
  job.image_digest = "sha256:known";
  Insert({job});
  MoveTo("job-1", JobStatus::kError, 200);
  JobRecord got = MustGet("job-1");
  EXPECT_EQ(got.image_digest, "sha256:known");
  EXPECT_EQ(got.result_json, "");
  EXPECT_EQ(got.finished_at_ms, 200);
}

TEST_F(SqliteJobStoreTest, TransitionToRunningRecordsADigestWhenGiven) {
  Insert({MakeJob("job-1", 100)});
  ASSERT_TRUE(store_->Transition("job-1", JobStatus::kRunning, 150, "", "sha256:run").ok());
  EXPECT_EQ(MustGet("job-1").image_digest, "sha256:run");
  MoveTo("job-1", JobStatus::kSucceeded, 200);  // No digest: the known one stays.
  EXPECT_EQ(MustGet("job-1").image_digest, "sha256:run");
}

TEST_F(SqliteJobStoreTest, TransitionFromTerminalIsFailedPrecondition) {
  int n = 0;
  for (JobStatus terminal : kTerminalStatuses) {
    for (JobStatus to : kAllStatuses) {
      SCOPED_TRACE(std::string(store::JobStatusName(terminal)) + " -> " +
                   std::string(store::JobStatusName(to)));
      std::string id = "job-" + std::to_string(n++);
      Insert({MakeJob(id, 100)});
      ASSERT_TRUE(store_->Transition(id, terminal, 200, R"({"first":true})", "sha256:1").ok());
      Status s = store_->Transition(id, to, 300, store::IsTerminal(to) ? R"({"second":1})" : "",
                                    "sha256:2");
      EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
      EXPECT_EQ(s.reason(), "job_terminal");
      JobRecord job = MustGet(id);  // Unchanged.
      EXPECT_EQ(job.status, terminal);
      EXPECT_EQ(job.finished_at_ms, 200);
      EXPECT_EQ(job.result_json, R"({"first":true})");
      EXPECT_EQ(job.image_digest, "sha256:1");
      EXPECT_EQ(job.transitions.size(), 2u);
    }
  }
}

TEST_F(SqliteJobStoreTest, TransitionRunningToQueuedIncrementsAttempt) {
  Insert({MakeJob("job-1", 100)});
  MoveTo("job-1", JobStatus::kRunning, 200);
  MoveTo("job-1", JobStatus::kQueued, 300);
  JobRecord job = MustGet("job-1");
  EXPECT_EQ(job.status, JobStatus::kQueued);
  EXPECT_EQ(job.attempt, 2);
  MoveTo("job-1", JobStatus::kRunning, 400);
  job = MustGet("job-1");
  EXPECT_EQ(job.attempt, 2);
  EXPECT_EQ(job.started_at_ms, 400);
  ExpectSameTransitions(job.transitions, {{JobStatus::kQueued, 100},
                                          {JobStatus::kRunning, 200},
                                          {JobStatus::kQueued, 300},
                                          {JobStatus::kRunning, 400}});
}

TEST_F(SqliteJobStoreTest, CancelOfQueuedJobFinishesItWithoutStarting) {
  Insert({MakeJob("job-1", 100)});
  MoveTo("job-1", JobStatus::kCancelled, 120);
  JobRecord job = MustGet("job-1");
  EXPECT_EQ(job.status, JobStatus::kCancelled);
  EXPECT_EQ(job.started_at_ms, 0);
  EXPECT_EQ(job.finished_at_ms, 120);
  ExpectSameTransitions(job.transitions, {{JobStatus::kQueued, 100}, {JobStatus::kCancelled, 120}});
  EXPECT_EQ(store_->Transition("job-1", JobStatus::kRunning, 130).reason(), "job_terminal");
}

TEST_F(SqliteJobStoreTest, TransitionOfUnknownIdIsNotFound) {
  Status s = store_->Transition("job-nope", JobStatus::kRunning, 1);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.reason(), "job_not_found");
}

TEST_F(SqliteJobStoreTest, TransitionWithResultToNonTerminalIsInvalidArgument) {
  Insert({MakeJob("job-1", 100)});
  Status s = store_->Transition("job-1", JobStatus::kRunning, 200, R"({"x":1})");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MustGet("job-1").status, JobStatus::kQueued);
}

// Eight threads race to finish the same running job with different terminal
// statuses: exactly one wins and the record shows only its transition.
TEST_F(SqliteJobStoreTest, ConcurrentTerminalTransitionsHaveExactlyOneWinner) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE(round);
    std::string id = "job-race-" + std::to_string(round);
    Insert({MakeJob(id, 100)});
    MoveTo(id, JobStatus::kRunning, 200);
    std::atomic<bool> go{false};
    std::vector<Status> results(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        while (!go.load()) std::this_thread::yield();
        results[t] = store_->Transition(id, kTerminalStatuses[t % 6], 300 + t,
                                        "{\"by\":" + std::to_string(t) + "}", "");
      });
    }
    go = true;
    for (std::thread& thread : threads) thread.join();

    int winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (results[t].ok()) {
        EXPECT_EQ(winner, -1) << "second winner " << t;
        winner = t;
      } else {
        EXPECT_EQ(results[t].code(), StatusCode::kFailedPrecondition) << results[t].ToString();
        EXPECT_EQ(results[t].reason(), "job_terminal");
      }
    }
    ASSERT_NE(winner, -1);
    JobRecord job = MustGet(id);
    EXPECT_EQ(job.status, kTerminalStatuses[winner % 6]);
    EXPECT_EQ(job.finished_at_ms, 300 + winner);
    EXPECT_EQ(job.result_json, "{\"by\":" + std::to_string(winner) + "}");
    EXPECT_EQ(job.transitions.size(), 3u);
  }
}

// The same race between two stores (connections) on one file: the
// transaction, not only the mutex, decides.
TEST_F(SqliteJobStoreTest, ConcurrentTransitionsThroughTwoConnectionsHaveOneWinner) {
  auto second = SqliteJobStore::Open(path_);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  constexpr int kRounds = 10;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE(round);
    std::string id = "job-race-" + std::to_string(round);
    Insert({MakeJob(id, 100)});
    MoveTo(id, JobStatus::kRunning, 200);
    std::atomic<bool> go{false};
    std::vector<Status> results(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      JobStore* store = t % 2 == 0 ? store_.get() : static_cast<JobStore*>(second->get());
      threads.emplace_back([&, store, t] {
        while (!go.load()) std::this_thread::yield();
        results[t] = store->Transition(id, kTerminalStatuses[t % 6], 300 + t);
      });
    }
    go = true;
    for (std::thread& thread : threads) thread.join();
    int winners = 0;
    for (const Status& s : results) {
      if (s.ok()) {
        ++winners;
      } else {
        EXPECT_EQ(s.reason(), "job_terminal") << s.ToString();
      }
    }
    EXPECT_EQ(winners, 1);
    EXPECT_EQ(MustGet(id).transitions.size(), 3u);
  }
}

// --- List ----------------------------------------------------------------------

TEST_F(SqliteJobStoreTest, ListPaginatesNewestFirstWithoutDuplicates) {
  // 120 jobs; created_at repeats in threes so the id breaks ties. Inserted
  // out of order.
  std::vector<JobRecord> all;
  for (int i = 0; i < 120; ++i) {
    char id[32];
    snprintf(id, sizeof(id), "job-%03d", (i * 37) % 120);
    all.push_back(MakeJob(id, 1000 + ((i * 37) % 120) / 3));
  }
  Insert(all);
  std::vector<std::tuple<int64_t, std::string>> want;
  for (const JobRecord& job : all) want.emplace_back(job.created_at_ms, job.id);
  std::sort(want.rbegin(), want.rend());

  std::vector<std::tuple<int64_t, std::string>> got;
  std::vector<size_t> page_sizes;
  ListFilter filter;
  filter.limit = 50;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = store_->List(filter);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    page_sizes.push_back(page->jobs.size());
    for (const JobRecord& job : page->jobs) got.emplace_back(job.created_at_ms, job.id);
    if (page->next_cursor.empty()) break;
    filter.cursor = page->next_cursor;
  }
  EXPECT_EQ(page_sizes, (std::vector<size_t>{50, 50, 20}));
  EXPECT_EQ(got, want);
  std::set<std::string> unique;
  for (const auto& [ms, id] : got) unique.insert(id);
  EXPECT_EQ(unique.size(), 120u);
}

TEST_F(SqliteJobStoreTest, ListOfExactlyOnePageHasNoCursor) {
  std::vector<JobRecord> jobs;
  for (int i = 0; i < 50; ++i) jobs.push_back(MakeJob("job-" + std::to_string(i), i));
  Insert(jobs);
  ListFilter filter;
  filter.limit = 50;
  auto page = store_->List(filter);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->jobs.size(), 50u);
  EXPECT_EQ(page->next_cursor, "");
}

TEST_F(SqliteJobStoreTest, ListOfTenantWithoutJobsIsEmpty) {
  auto page = store_->List(ListFilter{});
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->jobs.empty());
  EXPECT_EQ(page->next_cursor, "");
}

TEST_F(SqliteJobStoreTest, ListIsScopedToTenant) {
  Insert({MakeJob("job-a1", 1, "acme"), MakeJob("job-b1", 2, "beta"), MakeJob("job-a2", 3, "acme"),
          MakeJob("job-d1", 4)});
  ListFilter filter;
  filter.tenant = "acme";
  EXPECT_EQ(ListIds(filter), (std::vector<std::string>{"job-a2", "job-a1"}));
  filter.tenant = "beta";
  EXPECT_EQ(ListIds(filter), (std::vector<std::string>{"job-b1"}));
  EXPECT_EQ(ListIds(ListFilter{}), (std::vector<std::string>{"job-d1"}));
  filter.tenant = "nobody";
  EXPECT_TRUE(ListIds(filter).empty());
}

TEST_F(SqliteJobStoreTest, ListFiltersByStatusAcrossPages) {
  std::vector<JobRecord> jobs;
  for (int i = 0; i < 30; ++i) {
    char id[32];
    snprintf(id, sizeof(id), "job-%02d", i);
    jobs.push_back(MakeJob(id, 1000 + i));
  }
  Insert(jobs);
  for (int i = 0; i < 30; i += 3) MoveTo(jobs[i].id, JobStatus::kRunning, 2000);  // 10 running.

  ListFilter filter;
  filter.status = JobStatus::kRunning;
  filter.limit = 4;
  std::vector<std::string> got;
  std::vector<size_t> page_sizes;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = store_->List(filter);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    page_sizes.push_back(page->jobs.size());
    for (const JobRecord& job : page->jobs) {
      EXPECT_EQ(job.status, JobStatus::kRunning);
      got.push_back(job.id);
    }
    if (page->next_cursor.empty()) break;
    filter.cursor = page->next_cursor;
  }
  EXPECT_EQ(page_sizes, (std::vector<size_t>{4, 4, 2}));
  EXPECT_EQ(got, (std::vector<std::string>{"job-27", "job-24", "job-21", "job-18", "job-15",
                                           "job-12", "job-09", "job-06", "job-03", "job-00"}));

  filter = ListFilter{};
  filter.status = JobStatus::kSucceeded;
  EXPECT_TRUE(ListIds(filter).empty());
}

TEST_F(SqliteJobStoreTest, ListClampsLimitToOneThroughFiveHundred) {
  std::vector<JobRecord> jobs;
  for (int i = 0; i < 510; ++i) jobs.push_back(MakeJob("job-" + std::to_string(i), i));
  Insert(jobs);
  struct Case {
    int limit;
    size_t rows;
  };
  for (const Case& c : std::vector<Case>{
           {-5, 1}, {0, 1}, {1, 1}, {499, 499}, {500, 500}, {501, 500}, {100000, 500}}) {
    SCOPED_TRACE(c.limit);
    ListFilter filter;
    filter.limit = c.limit;
    auto page = store_->List(filter);
    ASSERT_TRUE(page.ok());
    EXPECT_EQ(page->jobs.size(), c.rows);
    EXPECT_NE(page->next_cursor, "");
  }
}

TEST_F(SqliteJobStoreTest, ListRowsOmitRequestAndResultJson) {
  JobRecord job = MakeJob("job-1", 100);
  job.limits_json = R"({"wall_ms":1})";
  Insert({job});
  ASSERT_TRUE(store_->Transition("job-1", JobStatus::kSucceeded, 200, R"({"ok":1})", "").ok());
  auto page = store_->List(ListFilter{});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->jobs.size(), 1u);
  EXPECT_EQ(page->jobs[0].request_json, "");
  EXPECT_EQ(page->jobs[0].result_json, "");
  EXPECT_EQ(page->jobs[0].limits_json, R"({"wall_ms":1})");
  EXPECT_EQ(page->jobs[0].status, JobStatus::kSucceeded);
  EXPECT_EQ(page->jobs[0].transitions.size(), 2u);
}

TEST_F(SqliteJobStoreTest, ListWithMalformedCursorIsInvalidArgument) {
  Insert({MakeJob("job-1", 100)});
  const std::vector<std::string> cursors = {
      "garbage",
      "_job-1",
      "100_",
      "abc_job-1",
      "10a_job-1",
      "-_job-1",
      "+5_job-1",
      "99999999999999999999_job-1",  // Overflows int64.
      "100_job 1",
      std::string("100_job\0x", 9),
      "100_job\n",
      " 100_job-1",
      "100_j\xc3\xa9",
  };
  for (const std::string& cursor : cursors) {
    SCOPED_TRACE(cursor);
    ListFilter filter;
    filter.cursor = cursor;
    auto page = store_->List(filter);
    EXPECT_EQ(page.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(page.status().reason(), "invalid_cursor");
  }
}

TEST_F(SqliteJobStoreTest, ListCursorIsStableWhenNewJobsArrive) {
  Insert({MakeJob("job-1", 1), MakeJob("job-2", 2), MakeJob("job-3", 3)});
  ListFilter filter;
  filter.limit = 2;
  auto first = store_->List(filter);
  ASSERT_TRUE(first.ok());
  Insert({MakeJob("job-4", 4)});  // Newer: must not appear on later pages.
  filter.cursor = first->next_cursor;
  EXPECT_EQ(ListIds(filter), (std::vector<std::string>{"job-1"}));
}

// --- NonTerminal and PurgeFinishedBefore -------------------------------------

TEST_F(SqliteJobStoreTest, NonTerminalReturnsQueuedAndRunningOfAllTenantsOldestFirst) {
  Insert({MakeJob("job-q-new", 500, "acme"), MakeJob("job-r-old", 100, "beta"),
          MakeJob("job-done", 50), MakeJob("job-q-old", 200), MakeJob("job-cancel", 300)});
  MoveTo("job-r-old", JobStatus::kRunning, 600);
  MoveTo("job-done", JobStatus::kRunning, 600);
  MoveTo("job-done", JobStatus::kSucceeded, 700);
  MoveTo("job-cancel", JobStatus::kCancelled, 700);

  auto jobs = store_->NonTerminal();
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  std::vector<std::string> ids;
  for (const JobRecord& job : *jobs) ids.push_back(job.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"job-r-old", "job-q-old", "job-q-new"}));
  for (const JobRecord& job : *jobs) {
    EXPECT_EQ(job.request_json, kRequestJson) << "whole record";
  }
}

TEST_F(SqliteJobStoreTest, PurgeFinishedBeforeRemovesOnlyOldTerminalJobs) {
  Insert({MakeJob("job-old-ok", 1), MakeJob("job-old-cancel", 2), MakeJob("job-new-ok", 3),
          MakeJob("job-queued", 4), MakeJob("job-running", 5), MakeJob("job-at-cutoff", 6)});
  MoveTo("job-old-ok", JobStatus::kSucceeded, 100);
  MoveTo("job-old-cancel", JobStatus::kCancelled, 200);
  MoveTo("job-new-ok", JobStatus::kFailed, 2000);
  MoveTo("job-running", JobStatus::kRunning, 10);
  MoveTo("job-at-cutoff", JobStatus::kTimeout, 1000);

  auto purged = store_->PurgeFinishedBefore(1000);
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  std::vector<std::string> ids = *purged;
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"job-old-cancel", "job-old-ok"}));
  for (const char* gone : {"job-old-ok", "job-old-cancel"}) {
    EXPECT_EQ(store_->Get(gone, "").status().code(), StatusCode::kNotFound) << gone;
  }
  for (const char* kept : {"job-new-ok", "job-queued", "job-running", "job-at-cutoff"}) {
    EXPECT_TRUE(store_->Get(kept, "").ok()) << kept;
  }
  auto again = store_->PurgeFinishedBefore(1000);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
}

// --- Result cache ---------------------------------------------------------------

TEST_F(SqliteJobStoreTest, CacheGetOfMissingKeyIsEmpty) {
  auto got = store_->CacheGet("nope", 0);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
}

TEST_F(SqliteJobStoreTest, CachePutThenGetHonoursExpiry) {
  ASSERT_TRUE(store_->CachePut("k", R"({"v":1})", 1000).ok());
  struct Case {
    int64_t now_ms;
    bool hit;
  };
  for (const Case& c : std::vector<Case>{{0, true}, {999, true}, {1000, false}, {5000, false}}) {
    SCOPED_TRACE(c.now_ms);
    auto got = store_->CacheGet("k", c.now_ms);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->has_value(), c.hit);
    if (c.hit) {
      EXPECT_EQ(**got, R"({"v":1})");
    }
  }
}

TEST_F(SqliteJobStoreTest, CachePutReplacesValueAndExpiry) {
  ASSERT_TRUE(store_->CachePut("k", "old", 1000).ok());
  ASSERT_TRUE(store_->CachePut("k", "new", 3000).ok());
  auto got = store_->CacheGet("k", 2000);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value_or("<none>"), "new");
}

TEST_F(SqliteJobStoreTest, CachePurgeExpiredDeletesOnlyExpiredAndCountsThem) {
  ASSERT_TRUE(store_->CachePut("a", "1", 100).ok());
  ASSERT_TRUE(store_->CachePut("b", "2", 200).ok());
  ASSERT_TRUE(store_->CachePut("c", "3", 300).ok());
  auto purged = store_->CachePurgeExpired(200);
  ASSERT_TRUE(purged.ok());
  EXPECT_EQ(*purged, 2);
  EXPECT_EQ(store_->CachePurgeExpired(200).value(), 0);
  store_.reset();
  EXPECT_EQ(RawQuery(path_, "SELECT group_concat(key) FROM cache"), "c");
}

TEST_F(SqliteJobStoreTest, KindAndProgressRoundTripAndDefaultToPlainJob) {
  JobRecord intent = MakeJob("job-intent", 100);
  intent.kind = "intent";
  intent.progress_json = R"({"stages":[]})";
  Insert({intent, MakeJob("job-plain", 101)});
  EXPECT_EQ(MustGet("job-intent").kind, "intent");
  EXPECT_EQ(MustGet("job-intent").progress_json, R"({"stages":[]})");
  EXPECT_EQ(MustGet("job-plain").kind, "job");
  EXPECT_EQ(MustGet("job-plain").progress_json, "");
}

TEST_F(SqliteJobStoreTest, UpdateProgressOnlyWhileNotTerminal) {
  Insert({MakeJob("job-p", 100)});
  ASSERT_TRUE(store_->UpdateProgress("job-p", R"({"n":1})").ok());
  MoveTo("job-p", JobStatus::kRunning, 200);
  ASSERT_TRUE(store_->UpdateProgress("job-p", R"({"n":2})").ok());
  EXPECT_EQ(MustGet("job-p").progress_json, R"({"n":2})");
  MoveTo("job-p", JobStatus::kCancelled, 300);
  Status late = store_->UpdateProgress("job-p", R"({"n":3})");
  EXPECT_EQ(late.reason(), "job_terminal");
  EXPECT_EQ(MustGet("job-p").progress_json, R"({"n":2})");
  EXPECT_EQ(store_->UpdateProgress("job-unknown", "{}").reason(), "job_not_found");
}

TEST_F(SqliteJobStoreTest, MigratesAVersion1DatabaseKeepingItsJobs) {
  store_.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix);
  // The schema as version 1 shipped it, with one job in it.
  RawExec(path_,
          "CREATE TABLE jobs (id TEXT NOT NULL PRIMARY KEY, tenant TEXT NOT NULL, status TEXT NOT "
          "NULL, language TEXT NOT NULL DEFAULT '', request_json TEXT NOT NULL DEFAULT '', "
          "code_sha256 TEXT NOT NULL DEFAULT '', inputs_sha256 TEXT NOT NULL DEFAULT '', "
          "cache_key TEXT NOT NULL DEFAULT '', image TEXT NOT NULL DEFAULT '', image_digest TEXT "
          "NOT NULL DEFAULT '', limits_json TEXT NOT NULL DEFAULT '', callback_url TEXT NOT NULL "
          "DEFAULT '', replay_of TEXT NOT NULL DEFAULT '', cached INTEGER NOT NULL DEFAULT 0, "
          "attempt INTEGER NOT NULL DEFAULT 1, created_at_ms INTEGER NOT NULL, started_at_ms "
          "INTEGER NOT NULL DEFAULT 0, finished_at_ms INTEGER NOT NULL DEFAULT 0, transitions TEXT "
          "NOT NULL DEFAULT '[]', result_json TEXT NOT NULL DEFAULT ''); CREATE TABLE cache (key "
          "TEXT NOT NULL PRIMARY KEY, result_json TEXT NOT NULL, expires_at_ms INTEGER NOT NULL); "
          "INSERT INTO jobs (id, tenant, status, created_at_ms) VALUES ('job-old', 'default', "
          "'queued', 5); PRAGMA user_version = 1;");
  auto reopened = SqliteJobStore::Open(path_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  store_ = std::move(*reopened);
  JobRecord old = MustGet("job-old");
  EXPECT_EQ(old.kind, "job");
  EXPECT_EQ(old.progress_json, "");
  EXPECT_EQ(RawQuery(path_, "PRAGMA user_version"), "2");
}

}  // namespace
}  // namespace coderunner::store
