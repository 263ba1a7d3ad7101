// The service on a PostgreSQL job store (store.kind postgres) against a real
// PostgreSQL 15 and the engine under test: jobs persist in the database and
// survive a restart, a kill -9 reruns the unfinished jobs once, a bad
// store.url is a clear startup error, and /readyz follows the database. Each test starts its own
// throwaway cluster (TempPostgres::Start; its cost is printed as a FIGURE).
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pg/temp_postgres.h"
#include "pg_support.h"
#include "server_process.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;
class PgStoreTest : public PgClusterTest {};

TEST_F(PgStoreTest, JobsRunAndPersistOnPostgres) {
  auto server = std::make_unique<ServerProcess>(StoreYaml(conninfo_));
  ASSERT_TRUE(server->started()) << server->log();
  EXPECT_NE(server->log().find("job store: PostgreSQL"), std::string::npos) << server->log();
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(Submit(*server, "print(" + std::to_string(i) + ")"));
  std::map<std::string, json> before;
  for (size_t i = 0; i < ids.size(); ++i) {
    json rec = WaitTerminal(*server, ids[i]);
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
    EXPECT_EQ(rec["result"]["stdout"], std::to_string(i) + "\n") << rec.dump();
  }
  HttpAnswer ex = server->Execute("python", "print('direct')", json{{"cache", false}});
  ASSERT_EQ(ex.status, 200) << ex.body;
  EXPECT_EQ(ex.json["status"], "succeeded") << ex.body;
  ASSERT_TRUE(ex.json.contains("id")) << ex.body;
  ids.push_back(ex.json["id"]);

  // Every job is a row of its own in PostgreSQL, succeeded, first attempt.
  std::set<std::string> want(ids.begin(), ids.end());
  std::set<std::string> rows;
  for (const auto& row : Query(conninfo_, "SELECT id, status, attempt FROM jobs")) {
    rows.insert(row[0]);
    EXPECT_EQ(row[1], "succeeded") << row[0];
    EXPECT_EQ(row[2], "1") << row[0];
  }
  EXPECT_EQ(rows, want);
  EXPECT_EQ(CountByStatus(conninfo_), (std::map<std::string, int>{{"succeeded", 4}}));
  for (const std::string& id : ids) before[id] = server->Get("/v1/jobs/" + id).json;

  EXPECT_TRUE(server->Stop()) << server->log();
  EXPECT_EQ(SessionsOn(*pg_, conninfo_), 0);  // A clean stop closes every connection.
  auto again = std::make_unique<ServerProcess>(*server);
  ASSERT_TRUE(again->started()) << again->log();
  for (const std::string& id : ids) {
    HttpAnswer a = again->Get("/v1/jobs/" + id);
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json, before[id]) << id;
  }
  // The dead node's containers (some created by requests it sent just
  // before the kill) are removed by the restarted node's recovery and
  // janitor in the background: wait for that, as JobsTest's kill -9 test
  // does, not counting the live node's own warm pool.
  EXPECT_TRUE(Eventually([&] {
    return CountContainers(again->socket(), again->instance(), again->PoolToken()) == 0;
  })) << "containers of instance "
      << again->instance() << " remain";
  EXPECT_TRUE(again->Stop()) << again->log();
}

// Follows job `id`'s /events on `s` until its first output: its process
// runs, in a container whose workspace exists. False if the stream ended
// first.
bool Printed(const ServerProcess& s, const std::string& id) {
  bool printed = false;
  s.StreamLines("/v1/jobs/" + id + "/events", [&](const std::string& line, Clock::time_point) {
    printed = line == "event: stdout";
    return !printed;
  });
  return printed;
}

TEST_F(PgStoreTest, KillNineThenRestartRerunsUnfinishedJobsOnce) {
  constexpr int kJobs = 4;
  // Two workers and no warm pool: every run has a container of its own,
  // and a workspace named after the job, which the job's rerun on the
  // restarted node must not trip over (the janitor comes a minute later).
  // Nor is a pool refill on its way at the kill below: the node sends the
  // engine nothing then, so no container appears after the restarted
  // node's recovery listed them (only the janitor would remove that one).
  auto server = std::make_unique<ServerProcess>(
      StoreYaml(conninfo_) + "jobs: {max_concurrent: 2}\npool: {enabled: false}\n");
  ASSERT_TRUE(server->started()) << server->log();
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    json job = {{"language", "bash"},
                {"code", "echo job " + std::to_string(i) + "; sleep 2"},
                {"cache", false}};
    HttpAnswer a = server->Post("/v1/jobs", job.dump());
    ASSERT_EQ(a.status, 202) << a.body;
    ids.push_back(a.json.value("id", ""));
  }
  // The first two run (both printed), as PostgreSQL has it too.
  ASSERT_TRUE(Printed(*server, ids[0])) << server->log();
  ASSERT_TRUE(Printed(*server, ids[1])) << server->log();
  const std::string running_sql = "SELECT id FROM jobs WHERE status = 'running'";
  server->Kill9();
  std::set<std::string> running_at_kill;
  for (const auto& row : Query(conninfo_, running_sql)) running_at_kill.insert(row[0]);
  ASSERT_FALSE(running_at_kill.empty());
  // The dead node's sessions go with its sockets.
  ASSERT_TRUE(Eventually([&] { return SessionsOn(*pg_, conninfo_) == 0; }));

  auto again = std::make_unique<ServerProcess>(*server);
  ASSERT_TRUE(again->started()) << again->log();
  int reruns = 0;
  for (int i = 0; i < kJobs; ++i) {
    SCOPED_TRACE("job " + std::to_string(i) + " " + ids[i]);
    json rec = WaitTerminal(*again, ids[i]);
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
    bool recovered = rec["result"].value("recovered", false);
    // Interrupted: rerun once (attempt 2), or recovered from its container
    // if that had finished meanwhile. Queued at the kill: run once.
    int want_attempt = running_at_kill.count(ids[i]) && !recovered ? 2 : 1;
    reruns += want_attempt == 2 ? 1 : 0;
    EXPECT_EQ(rec["attempt"], want_attempt) << rec.dump();
    if (!recovered) {
      EXPECT_EQ(rec["result"]["stdout"], "job " + std::to_string(i) + "\n");
    }
  }
  // None lost, none twice: one row per job, each terminal exactly once.
  EXPECT_EQ(CountByStatus(conninfo_), (std::map<std::string, int>{{"succeeded", kJobs}}));
  for (const auto& row : Query(conninfo_, "SELECT id, transitions FROM jobs")) {
    int terminal = 0;
    for (const json& t : json::parse(row[1])) terminal += t["status"] == "succeeded" ? 1 : 0;
    EXPECT_EQ(terminal, 1) << row[0] << " " << row[1];
  }
  std::cout << "[  FIGURE  ] pg_running_at_kill = " << running_at_kill.size()
            << "\n[  FIGURE  ] pg_rerun_as_attempt_2 = " << reruns << std::endl;
  // The dead node's containers (some created by requests it sent just
  // before the kill) are removed by the restarted node's recovery and
  // janitor in the background: wait for that, as JobsTest's kill -9 test
  // does, not counting the live node's own warm pool.
  EXPECT_TRUE(Eventually([&] {
    return CountContainers(again->socket(), again->instance(), again->PoolToken()) == 0;
  })) << "containers of instance "
      << again->instance() << " remain";
  EXPECT_TRUE(again->Stop()) << again->log();
}

TEST_F(PgStoreTest, UnreachableStoreUrlIsAClearStartupError) {
  constexpr const char* kPassword = "pg-password-canary-51d0";
  std::string empty_dir = pg_->dir() + "/no-server-here";
  std::filesystem::create_directories(empty_dir);
  struct Case {
    const char* name;
    std::string extra;
  };
  for (const Case& c : {Case{"no password", ""}, Case{"password_env", ", password_env: PG_PW"}}) {
    SCOPED_TRACE(c.name);
    ServerProcess server(StoreYaml("host=" + empty_dir + " user=postgres dbname=jobs", c.extra), "",
                         {{"PG_PW", kPassword}});
    EXPECT_FALSE(server.started()) << server.log();
    EXPECT_EQ(server.startup_exit_code(), 2) << server.log();  // kExitStartupFailed.
    EXPECT_NE(server.log().find("store.url: "), std::string::npos) << server.log();
    EXPECT_NE(server.log().find("store_unavailable"), std::string::npos) << server.log();
    EXPECT_EQ(server.log().find(kPassword), std::string::npos) << server.log();
  }
}

TEST_F(PgStoreTest, ReadyzFollowsTheDatabase) {
  // probe_cache_ms 0: every /readyz asks the store again.
  auto server = std::make_unique<ServerProcess>(
      StoreYaml(conninfo_) + "server: {listen: 127.0.0.1:0, probe_cache_ms: 0}\n");
  ASSERT_TRUE(server->started()) << server->log();
  EXPECT_EQ(server->Get("/readyz").status, 200);

  ASSERT_TRUE(pg_->Stop().ok());
  HttpAnswer down;
  EXPECT_TRUE(Eventually([&] {
    down = server->Get("/readyz");
    return down.status != 200;
  }));
  EXPECT_EQ(down.status, 503) << down.body;
  EXPECT_EQ(down.json["error"]["code"], "store_unavailable") << down.body;

  ASSERT_TRUE(pg_->StartAgain().ok());
  EXPECT_TRUE(Eventually([&] { return server->Get("/readyz").status == 200; }));
  std::string id = Submit(*server, "print('back')");
  json rec = WaitTerminal(*server, id);
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
  EXPECT_EQ(CountByStatus(conninfo_), (std::map<std::string, int>{{"succeeded", 1}}));
  EXPECT_TRUE(server->Stop()) << server->log();
}

}  // namespace
}  // namespace coderunner::testing
