// This node's row in the node registry: its fields from the config
// (node_identity.h), and the heartbeat that writes it and removes it on a
// clean shutdown (node_heartbeat.h), over a real registry (a SQLite job
// store).
#include "service/node_heartbeat.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "service/node_identity.h"

namespace coderunner::service {
namespace {

TEST(NodeIdentityTest, FieldsFromTheConfig) {
  struct Case {
    const char* name;
    const char* listen;
    const char* advertise_url;
    config::RunMode mode;
    const char* runtime;
    int max_concurrent;
    const char* want_url;
    const char* want_engine;
    int want_capacity;  // -1: the cores.
  };
  const Case cases[] = {
      {"defaults", "127.0.0.1:8080", "", config::RunMode::kSandboxed, "", 4,
       "http://127.0.0.1:8080", "", 4},
      {"every address", "0.0.0.0:9000", "", config::RunMode::kSandboxed, "runsc", 16,
       "http://host-1:9000", "", 16},
      {"given url", "0.0.0.0:9000", "https://n1.example", config::RunMode::kSandboxed, "runc", 1,
       "https://n1.example", "", 1},
      {"native, cores", "127.0.0.1:8080", "", config::RunMode::kNative, "", 0,
       "http://127.0.0.1:8080", "native", -1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    config::Config cfg = config::DefaultConfig();
    cfg.instance = "node-7";
    cfg.server.listen = c.listen;
    cfg.node.advertise_url = c.advertise_url;
    cfg.code_runner.runtime = c.mode;
    cfg.sandbox.runtime = c.runtime;
    cfg.jobs.max_concurrent = c.max_concurrent;
    store::NodeInfo n = NodeIdentity(cfg, "host-1", 1234);
    EXPECT_EQ(n.id, "node-7");
    EXPECT_EQ(n.advertised_url, c.want_url);
    EXPECT_EQ(n.engine, c.want_engine);
    EXPECT_EQ(n.runtime, c.runtime);
    const unsigned cores = std::thread::hardware_concurrency();
    EXPECT_EQ(n.capacity,
              c.want_capacity >= 0 ? c.want_capacity : (cores == 0 ? 2 : static_cast<int>(cores)));
    EXPECT_EQ(n.version, CoderunnerVersion());
    EXPECT_NE(n.version, "unknown");  // CMake gives the project's version.
    EXPECT_EQ(n.started_at_ms, 1234);
    EXPECT_TRUE(CheckNodeInfo(n).ok());
  }
  EXPECT_EQ(EngineKindName(engine::EngineKind::kDocker), "docker");
  EXPECT_EQ(EngineKindName(engine::EngineKind::kPodman), "podman");
  EXPECT_FALSE(HostName().empty());
}

class NodeHeartbeatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/coderunner-heartbeat-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    auto opened = store::SqliteJobStore::Open(dir_ + "/jobs.db");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
  }
  void TearDown() override {
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // Options whose clock is `now_` and whose running count is `running_`.
  NodeHeartbeatOptions Options(std::chrono::milliseconds period) {
    NodeHeartbeatOptions o;
    o.node.id = "node-1";
    o.node.advertised_url = "http://node-1:8080";
    o.node.capacity = 8;
    o.node.version = "0.1.0";
    o.node.started_at_ms = 100;
    o.period = period;
    o.running = [this] { return running_.load(); };
    o.engine = [this] {
      ++engine_asked_;
      return engine_.empty() ? std::string() : engine_;
    };
    o.now_ms = [this] { return now_.load(); };
    return o;
  }
  std::vector<store::NodeInfo> Rows() {
    auto rows = store_->List();
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<store::NodeInfo>{};
  }

  std::string dir_;
  std::unique_ptr<store::SqliteJobStore> store_;
  std::atomic<int> running_{0};
  std::atomic<int64_t> now_{1000};
  std::atomic<int> engine_asked_{0};
  std::string engine_;  // Set before a beat only (not while the thread runs).
};

TEST_F(NodeHeartbeatTest, EachBeatWritesTheRowUntilACleanStopRemovesIt) {
  NodeHeartbeat beat(*store_, Options(std::chrono::hours(1)));  // Only explicit beats.
  engine_ = "docker";
  ASSERT_TRUE(beat.Start().ok());
  std::vector<store::NodeInfo> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, "node-1");
  // Start's beat never asks the engine (it may hang at startup).
  EXPECT_EQ(engine_asked_.load(), 0);
  EXPECT_EQ(rows[0].engine, "");
  EXPECT_EQ(rows[0].capacity, 8);
  EXPECT_EQ(rows[0].running, 0);
  EXPECT_EQ(rows[0].last_heartbeat_ms, 1000);

  engine_ = "podman";
  running_ = 3;
  now_ = 6000;
  ASSERT_TRUE(beat.Beat().ok());
  rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].engine, "podman");
  EXPECT_EQ(rows[0].running, 3);
  EXPECT_EQ(rows[0].last_heartbeat_ms, 6000);
  EXPECT_EQ(rows[0].started_at_ms, 100);

  const int asked = engine_asked_.load();
  ASSERT_TRUE(beat.Beat().ok());
  EXPECT_EQ(engine_asked_.load(), asked);  // Known now: not asked again.

  beat.Stop(/*leave=*/true);
  EXPECT_TRUE(Rows().empty());
  beat.Stop(/*leave=*/true);  // Idempotent.
  EXPECT_TRUE(Rows().empty());
}

TEST_F(NodeHeartbeatTest, ADeadNodeKeepsItsRow) {
  {
    NodeHeartbeat beat(*store_, Options(std::chrono::hours(1)));
    ASSERT_TRUE(beat.Start().ok());
  }  // Destroyed without a clean stop.
  std::vector<store::NodeInfo> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].last_heartbeat_ms, 1000);
}

TEST_F(NodeHeartbeatTest, TheThreadBeatsEveryPeriod) {
  NodeHeartbeat beat(*store_, Options(std::chrono::milliseconds(5)));
  ASSERT_TRUE(beat.Start().ok());
  running_ = 5;
  now_ = 2000;
  // Wait for the thread's beat to show (no bound on how long it takes).
  while (true) {
    std::vector<store::NodeInfo> rows = Rows();
    ASSERT_EQ(rows.size(), 1u);
    if (rows[0].last_heartbeat_ms == 2000 && rows[0].running == 5) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  beat.Stop(/*leave=*/false);
  EXPECT_EQ(Rows().size(), 1u);  // Stopped without leaving: the row stays.
}

TEST_F(NodeHeartbeatTest, AnInvalidRowFailsTheFirstBeatAndStoresNothing) {
  NodeHeartbeatOptions o = Options(std::chrono::hours(1));
  o.node.id = "";
  NodeHeartbeat beat(*store_, std::move(o));
  Status s = beat.Start();
  EXPECT_EQ(s.reason(), store::kReasonInvalidNode) << s.ToString();
  EXPECT_TRUE(Rows().empty());
}

}  // namespace
}  // namespace coderunner::service
