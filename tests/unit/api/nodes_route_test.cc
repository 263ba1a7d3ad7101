// GET /v1/nodes (src/api/nodes_route.h): admin keys only, over a real
// registry (a SQLite job store), and the body's liveness from the age of
// each node's last heartbeat.
#include "api/nodes_route.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/common/sha256.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

constexpr int64_t kNowMs = 1'800'000'000'000;  // 2027-01-15T08:00:00Z.

store::NodeInfo MakeNode(const std::string& id, int64_t heartbeat_ms) {
  store::NodeInfo n;
  n.id = id;
  n.advertised_url = "http://" + id + ":8080";
  n.engine = "docker";
  n.runtime = "runsc";
  n.capacity = 4;
  n.running = 2;
  n.version = "0.1.0";
  n.started_at_ms = kNowMs - 60'000;
  n.last_heartbeat_ms = heartbeat_ms;
  return n;
}

TEST(NodesJsonTest, AliveWhileTheLastHeartbeatIsUnderThreePeriods) {
  struct Case {
    int64_t age_ms;
    int64_t want_age_ms;
    bool alive;
  };
  const Case cases[] = {
      {0, 0, true},
      {5'000, 5'000, true},
      {14'999, 14'999, true},
      {15'000, 15'000, false},  // 3 periods of 5 s.
      {3'600'000, 3'600'000, false},
      {-2'000, 0, true},  // A clock a little ahead on the writing node.
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.age_ms);
    json got = NodesJson({MakeNode("node-a", kNowMs - c.age_ms)}, kNowMs);
    ASSERT_EQ(got["nodes"].size(), 1u);
    EXPECT_EQ(got["nodes"][0]["age_ms"], c.want_age_ms);
    EXPECT_EQ(got["nodes"][0]["alive"], c.alive);
  }
}

TEST(NodesJsonTest, EveryFieldInItsPlace) {
  json got = NodesJson({MakeNode("node-a", kNowMs - 1000), MakeNode("node-b", kNowMs)}, kNowMs);
  ASSERT_EQ(got["nodes"].size(), 2u);
  const json& a = got["nodes"][0];
  EXPECT_EQ(a, json({{"id", "node-a"},
                     {"url", "http://node-a:8080"},
                     {"engine", "docker"},
                     {"runtime", "runsc"},
                     {"capacity", 4},
                     {"running", 2},
                     {"version", "0.1.0"},
                     {"started_at", "2027-01-15T07:59:00.000Z"},
                     {"last_heartbeat", "2027-01-15T07:59:59.000Z"},
                     {"age_ms", 1000},
                     {"alive", true}}));
  EXPECT_EQ(got["nodes"][1]["id"], "node-b");
  EXPECT_EQ(NodesJson({}, kNowMs), json({{"nodes", json::array()}}));
}

// A registry in a SQLite job store with two nodes, and an adapter over a
// config with a tenant key and an admin key.
class NodesRouteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/coderunner-nodes-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    auto opened = store::SqliteJobStore::Open(dir_ + "/jobs.db");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->Heartbeat(MakeNode("node-b", 0), kNowMs - 60'000).ok());
    ASSERT_TRUE(store_->Heartbeat(MakeNode("node-a", 0), kNowMs - 2'000).ok());
    config_ = config::DefaultConfig();
    config_.auth.mode = "api_keys";
    config_.auth.keys = {{"acme", "pro", Sha256Hex("acme-key")},
                         {"ops", "free", Sha256Hex("ops-key"), /*admin=*/true}};
  }
  void TearDown() override {
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  httplib::Response Call(store::NodeRegistry* registry, const std::string& authorization) {
    AuthAdapter adapter(AuthDeps{&authenticator_, &limiter_, &long_requests_, &config_, &metrics_});
    auto handler = NodesHandler(registry, adapter, [] { return kNowMs; });
    httplib::Request req;
    req.method = "GET";
    req.path = kNodesPath;
    if (!authorization.empty()) req.set_header("Authorization", authorization);
    httplib::Response res;
    handler(req, res);
    return res;
  }

  std::string dir_;
  std::unique_ptr<store::SqliteJobStore> store_;
  config::Config config_;
  auth::Authenticator authenticator_{config_};
  auth::LocalRateLimiter limiter_;
  auth::LongRequestLimiter long_requests_;
  MetricsRegistry metrics_;
};

TEST_F(NodesRouteTest, OnlyAnAdminKeySeesTheNodes) {
  struct Case {
    const char* name;
    const char* authorization;
    bool registry;
    int status;
    const char* code;  // nullptr: the nodes.
  };
  const Case cases[] = {
      {"admin key", "Bearer ops-key", true, 200, nullptr},
      {"tenant key", "Bearer acme-key", true, 403, "forbidden"},
      {"no key", "", true, 401, "unauthenticated"},
      {"unknown key", "Bearer nope", true, 401, "unauthenticated"},
      {"admin key, no registry", "Bearer ops-key", false, 503, kReasonNoNodeRegistry},
      {"tenant key, no registry", "Bearer acme-key", false, 403, "forbidden"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    httplib::Response res = Call(c.registry ? store_.get() : nullptr, c.authorization);
    EXPECT_EQ(res.status, c.status) << res.body;
    json body = json::parse(res.body, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(body.is_discarded()) << res.body;
    if (c.code != nullptr) {
      EXPECT_EQ(body["error"]["code"], c.code) << res.body;
      EXPECT_FALSE(body.contains("nodes"));
      continue;
    }
    ASSERT_EQ(body["nodes"].size(), 2u) << res.body;
    EXPECT_EQ(body["nodes"][0]["id"], "node-a");  // By id.
    EXPECT_EQ(body["nodes"][0]["age_ms"], 2000);
    EXPECT_EQ(body["nodes"][0]["alive"], true);
    EXPECT_EQ(body["nodes"][0]["url"], "http://node-a:8080");
    EXPECT_EQ(body["nodes"][1]["id"], "node-b");
    EXPECT_EQ(body["nodes"][1]["age_ms"], 60000);
    EXPECT_EQ(body["nodes"][1]["alive"], false);
  }
}

}  // namespace
}  // namespace coderunner::api
