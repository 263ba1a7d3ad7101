// PgJobStore's PostgreSQL-only behaviour on a real PostgreSQL 15 (the
// cluster of the ctest fixture "pg", or one this process starts): the
// migrations, the pool, reconnecting. The contract
// shared with SqliteJobStore is tested over both stores elsewhere.
#include "coderunner/store/postgres/pg_job_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pg/temp_postgres.h"
#include "pg_query_int.h"
#include "store/postgres/pg_connection.h"
#include "store/postgres/pg_pool.h"
#include "store/postgres/pg_schema.h"

namespace coderunner::store {
namespace {

using coderunner::testing::SharedPostgres;
using coderunner::testing::TempPostgres;
using store::JobRecord;
using store::JobStatus;

JobRecord MakeJob(const std::string& id, int64_t created_at_ms) {
  JobRecord job;
  job.id = id;
  job.language = "python";
  job.request_json = R"json({"code":"print(1)"})json";
  job.created_at_ms = created_at_ms;
  job.transitions = {{JobStatus::kQueued, created_at_ms}};
  return job;
}

PgStoreOptions Options(const std::string& conninfo, int max_connections = 4) {
  PgStoreOptions options;
  options.conninfo = conninfo;
  options.max_connections = max_connections;
  options.connect_timeout_ms = 2000;
  return options;
}

class PgJobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto conninfo = SharedPostgres().CreateDatabase();
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
  }

  std::unique_ptr<PgJobStore> OpenStore(int max_connections = 4) {
    auto store = PgJobStore::Open(Options(conninfo_, max_connections));
    EXPECT_TRUE(store.ok()) << store.status().message();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  std::string conninfo_;
};

TEST_F(PgJobStoreTest, RacingOpensMigrateOnce) {
  constexpr int kOpeners = 6;
  std::vector<std::thread> threads;
  std::atomic<int> opened{0};
  for (int i = 0; i < kOpeners; ++i) {
    threads.emplace_back([&] {
      auto store = PgJobStore::Open(Options(conninfo_));
      if (store.ok()) ++opened;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(opened.load(), kOpeners);
  EXPECT_EQ(QueryInt(conninfo_, "SELECT count(*) FROM schema_migrations"), kPgSchemaVersion);
  EXPECT_EQ(QueryInt(conninfo_, "SELECT max(version) FROM schema_migrations"), kPgSchemaVersion);
}

TEST_F(PgJobStoreTest, RefusesANewerSchema) {
  ASSERT_NE(OpenStore(), nullptr);
  EXPECT_EQ(QueryInt(conninfo_, "INSERT INTO schema_migrations (version) VALUES (" +
                                    std::to_string(kPgSchemaVersion + 1) + ") RETURNING version"),
            kPgSchemaVersion + 1);
  auto store = PgJobStore::Open(Options(conninfo_));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(store.status().reason(), kReasonSchemaTooNew);
}

TEST_F(PgJobStoreTest, MigrationCountsTheStoredOutputOfJobsFinishedBefore) {
  // A database at version 7 (the schema before the footprint), with a job
  // that finished then (multi-byte text counted in bytes) and one running.
  {
    auto conn = PgConnection::Connect(conninfo_, "", 2000);
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    ASSERT_TRUE((*conn)
                    ->ExecScript("CREATE TABLE schema_migrations (version INTEGER PRIMARY "
                                 "KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                                 "create schema_migrations")
                    .ok());
    for (int v = 0; v < 7; ++v) {
      ASSERT_TRUE((*conn)->ExecScript(kPgMigrations[v], "migrate").ok()) << v;
      ASSERT_TRUE((*conn)
                      ->ExecScript(("INSERT INTO schema_migrations (version) VALUES (" +
                                    std::to_string(v + 1) + ")")
                                       .c_str(),
                                   "record")
                      .ok());
    }
    ASSERT_TRUE((*conn)
                    ->ExecScript("INSERT INTO jobs (id, tenant, status, created_at_ms, "
                                 "finished_at_ms, request_json, callback_url, result_json, "
                                 "progress_json) VALUES ('job-done', 'acme', 'succeeded', 5, "
                                 "6, '{\"code\":1}', 'https://x', '\"h\u00e9\"', 'pp'), "
                                 "('job-live', 'acme', 'running', 7, 0, '{}', '', '', '')",
                                 "insert jobs")
                    .ok());
  }
  std::unique_ptr<PgJobStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  auto footprint = store->TenantFootprint("acme");
  ASSERT_TRUE(footprint.ok()) << footprint.status().ToString();
  EXPECT_EQ(footprint->output_bytes, 10 + 9 + 5 + 2);  // 5: two quotes, h, and é's two bytes.
  EXPECT_EQ(footprint->artifact_bytes, 0);
  EXPECT_EQ(footprint->jobs, 1);
}

TEST_F(PgJobStoreTest, PoolBoundHoldsUnderLoad) {
  constexpr int kMax = 3;
  auto store = OpenStore(kMax);
  ASSERT_NE(store, nullptr);
  const std::string count_sql =
      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
      "AND pid <> pg_backend_pid()";
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kMax + 5; ++w) {
    workers.emplace_back([&, w] {
      for (int i = 0; i < 40; ++i) {
        std::string id = "job-" + std::to_string(w) + "-" + std::to_string(i);
        if (!store->Insert({MakeJob(id, i)}).ok() || !store->Get(id, "").ok()) ++failures;
      }
    });
  }
  // One connection of its own watches the backends of the store's database
  // (a connection per look would count its predecessors while they exit).
  auto watcher = PgConnection::Connect(conninfo_, "", 2000);
  ASSERT_TRUE(watcher.ok()) << watcher.status().message();
  int64_t most = 0;
  std::thread monitor([&] {
    while (!done) {
      auto count = (*watcher)->Exec(count_sql, {}, "count backends");
      if (count.ok()) most = std::max(most, count->Int(0, 0));
    }
  });
  for (std::thread& t : workers) t.join();
  done = true;
  monitor.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(most, kMax);
  EXPECT_GE(most, 1);
  auto after = (*watcher)->Exec(count_sql, {}, "count backends");
  ASSERT_TRUE(after.ok());
  int64_t open_after = after->Int(0, 0);
  EXPECT_GE(open_after, 1);
  EXPECT_LE(open_after, kMax);
  EXPECT_EQ(QueryInt(conninfo_, "SELECT count(*) FROM jobs"), (kMax + 5) * 40);
}

TEST_F(PgJobStoreTest, AcquirePastTheDeadlineIsUnavailable) {
  PgPool pool(PgPoolOptions{conninfo_, "", 1, 2000});
  auto held = pool.Acquire();
  ASSERT_TRUE(held.ok()) << held.status().message();
  auto second = pool.Acquire(std::chrono::steady_clock::now() + std::chrono::milliseconds(100));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(second.status().reason(), kReasonStoreUnavailable);
}

TEST_F(PgJobStoreTest, DuplicateInsertIsAlreadyExistsAndInsertsNothing) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Insert({MakeJob("job-a", 1)}).ok());
  Status dup = store->Insert({MakeJob("job-b", 2), MakeJob("job-a", 3)});
  EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(dup.reason(), kReasonJobExists);
  EXPECT_EQ(QueryInt(conninfo_, "SELECT count(*) FROM jobs"), 1);
  // The connection that failed is still usable.
  EXPECT_TRUE(store->Insert({MakeJob("job-b", 2)}).ok());
  EXPECT_EQ(QueryInt(conninfo_, "SELECT count(*) FROM jobs"), 2);
}

TEST_F(PgJobStoreTest, TransitionsAndListsThroughSharedSql) {
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(store->Insert({MakeJob("job-" + std::to_string(i), i)}).ok());
  ASSERT_TRUE(store->Transition("job-1", JobStatus::kRunning, 10, "", "", "").ok());
  ASSERT_TRUE(
      store->Transition("job-1", JobStatus::kSucceeded, 20, R"({"ok":1})", "sha256:d", "").ok());
  EXPECT_EQ(store->Transition("job-1", JobStatus::kCancelled, 30, "", "", "").reason(),
            kReasonJobTerminal);
  auto job = store->Get("job-1", "");
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->status, JobStatus::kSucceeded);
  EXPECT_EQ(job->started_at_ms, 10);
  EXPECT_EQ(job->finished_at_ms, 20);
  EXPECT_EQ(job->result_json, R"({"ok":1})");
  EXPECT_EQ(job->transitions.size(), 3u);
  ListFilter filter;
  filter.limit = 2;
  auto first = store->List(filter);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->jobs.size(), 2u);
  EXPECT_EQ(first->jobs[0].id, "job-4");
  filter.cursor = first->next_cursor;
  filter.status = JobStatus::kQueued;
  auto second = store->List(filter);
  ASSERT_TRUE(second.ok()) << second.status().message();
  ASSERT_EQ(second->jobs.size(), 2u);
  EXPECT_EQ(second->jobs[0].id, "job-2");
  EXPECT_EQ(second->jobs[1].id, "job-0");  // job-1 is no longer queued.
  auto purged = store->PurgeFinishedBefore(21);
  ASSERT_TRUE(purged.ok());
  EXPECT_EQ(*purged, std::vector<std::string>{"job-1"});
}

TEST_F(PgJobStoreTest, BadConninfoNeverEchoesThePassword) {
  const std::string password = "pw-Zq81-secret";
  const std::vector<std::string> conninfos = {
      "host=/nonexistent/crpg port=5432 user=postgres dbname=x password=" + password,
      "postgresql://postgres:" + password + "@%2Fnonexistent%2Fcrpg/x",
      "host=/nonexistent/crpg dbname=x",
  };
  for (const std::string& conninfo : conninfos) {
    PgStoreOptions options = Options(conninfo);
    options.password = password;
    auto store = PgJobStore::Open(options);
    ASSERT_FALSE(store.ok()) << conninfo;
    EXPECT_EQ(store.status().code(), StatusCode::kUnavailable) << conninfo;
    EXPECT_EQ(store.status().reason(), kReasonStoreUnavailable);
    EXPECT_EQ(store.status().message().find(password), std::string::npos)
        << store.status().message();
    EXPECT_NE(store.status().message().find("nonexistent"), std::string::npos)
        << store.status().message();
  }
}

// Stops its own cluster, so that the shared one stays up for other tests.
TEST(PgJobStoreRestartTest, PingFailsWhileDownAndTheSameStoreRecovers) {
  auto pg = TempPostgres::Start();
  ASSERT_TRUE(pg.ok()) << pg.status().message();
  auto conninfo = (*pg)->CreateDatabase();
  ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
  auto store = PgJobStore::Open(Options(*conninfo, 4));
  ASSERT_TRUE(store.ok()) << store.status().message();
  ASSERT_TRUE((*store)->Insert({MakeJob("job-a", 1)}).ok());
  ASSERT_TRUE((*store)->Ping().ok());

  ASSERT_TRUE((*pg)->Stop().ok());
  Status down = (*store)->Ping();
  EXPECT_EQ(down.code(), StatusCode::kUnavailable);
  EXPECT_EQ(down.reason(), kReasonStoreUnavailable);
  Status still_down = (*store)->Ping();  // A fresh connect fails the same way.
  EXPECT_EQ(still_down.reason(), kReasonStoreUnavailable);

  ASSERT_TRUE((*pg)->StartAgain().ok());
  Status up = (*store)->Ping();
  EXPECT_TRUE(up.ok()) << up.message();
  auto job = (*store)->Get("job-a", "");
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->created_at_ms, 1);

  // A restart no call saw: the idle connections the server closed are
  // skipped, and the first call after it already works.
  ASSERT_TRUE((*pg)->Stop().ok());
  ASSERT_TRUE((*pg)->StartAgain().ok());
  Status unseen = (*store)->Ping();
  EXPECT_TRUE(unseen.ok()) << unseen.message();
}

}  // namespace
}  // namespace coderunner::store
