// The result cache is per tenant, and holds only what a program determined:
// never another tenant's result, never a result the engine caused.
#include <chrono>
#include <string>
#include <thread>

#include "coderunner/engine/containers.h"
#include "coderunner/engine/curl_transport.h"
#include "coderunner/isolation/container_policy.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;
using std::chrono::steady_clock;

constexpr const char* kAcmeKey = "acme-cache-key-0123456789";
constexpr const char* kGlobexKey = "globex-cache-key-0123456789";

class CacheTenancyTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    // The cache is on (its default TTL). No warm pool: the test finds a
    // job's container by its job label to stop it from outside.
    return ApiKeysYaml({{"acme", "pro", kAcmeKey}, {"globex", "pro", kGlobexKey}}) +
           "pool: {enabled: false}\n"
           "jobs: {max_concurrent: 3}\n";
  }

  HttpAnswer Run(const std::string& key, const json& body) {
    return server_->Call("POST", "/v1/execute", key, body.dump());
  }

  // Waits until job `id` runs; its status then.
  std::string WaitRunning(const std::string& key, const std::string& id) {
    std::string status;
    for (auto until = steady_clock::now() + seconds(120); steady_clock::now() < until;) {
      status = server_->Call("GET", "/v1/jobs/" + id, key).json.value("status", "");
      if (status != "queued") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return status;
  }
};

TEST_F(CacheTenancyTest, AnotherTenantsIdenticalRequestIsNeverACacheHit) {
  // Random output: only a cache hit can repeat it.
  const json body = {{"language", "python"},
                     {"code", "import random\nprint('draw', random.random())"}};
  HttpAnswer a1 = Run(kAcmeKey, body);
  ASSERT_EQ(a1.status, 200) << a1.body;
  ASSERT_EQ(a1.json["cached"], false) << a1.body;
  HttpAnswer a2 = Run(kAcmeKey, body);
  ASSERT_EQ(a2.json["cached"], true) << "the cache is on for acme itself: " << a2.body;
  EXPECT_EQ(a2.json["stdout"], a1.json["stdout"]);

  // globex sends acme's exact request: it runs, and learns nothing of acme.
  HttpAnswer g1 = Run(kGlobexKey, body);
  ASSERT_EQ(g1.status, 200) << g1.body;
  EXPECT_EQ(g1.json["cached"], false) << g1.body;
  EXPECT_NE(g1.json["stdout"], a1.json["stdout"]) << "globex got acme's result";
  HttpAnswer async = server_->Call("POST", "/v1/jobs", kGlobexKey,
                                   json{{"language", "python"}, {"code", "print('other')"}}.dump());
  ASSERT_EQ(async.status, 202) << async.body;

  // Each tenant's later identical requests get its own entry.
  HttpAnswer g2 = Run(kGlobexKey, body);
  EXPECT_EQ(g2.json["cached"], true) << g2.body;
  EXPECT_EQ(g2.json["stdout"], g1.json["stdout"]);
  HttpAnswer a3 = Run(kAcmeKey, body);
  EXPECT_EQ(a3.json["cached"], true) << a3.body;
  EXPECT_EQ(a3.json["stdout"], a1.json["stdout"]) << "globex's run replaced acme's entry";
  server_->Call("GET", "/v1/jobs/" + async.json["id"].get<std::string>() + "/wait?timeout_s=60",
                kGlobexKey);
}

TEST_F(CacheTenancyTest, AResultTheEngineCausedIsNeverServedFromTheCache) {
  // The program prints a random value and would sleep for 30 s; the engine
  // kills its container first (as an operator's `docker kill`, an engine
  // restart or the host's OOM killer would). That end is the engine's, not
  // the program's: the same request must run again, not get it back.
  const json body = {
      {"language", "python"},
      {"code", "import random, time\nprint('draw', random.random(), flush=True)\ntime.sleep(30)"},
      {"limits", {{"timeout_ms", 50000}}}};
  HttpAnswer sub = server_->Call("POST", "/v1/jobs", kAcmeKey, body.dump());
  ASSERT_EQ(sub.status, 202) << sub.body;
  const std::string id = sub.json["id"];
  ASSERT_EQ(WaitRunning(kAcmeKey, id), "running");

  engine::CurlTransport transport(server_->socket());
  engine::ContainerClient containers(transport, seconds(30));
  bool killed = false;
  for (auto until = steady_clock::now() + seconds(60); !killed && steady_clock::now() < until;) {
    auto list = containers.List({{isolation::kLabelJob, id}});
    if (list.ok() && !list->empty() && (*list)[0].state == "running") {
      killed = containers.Kill((*list)[0].id).ok();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ASSERT_TRUE(killed) << "could not find job " << id << "'s running container";
  HttpAnswer done = server_->Call("GET", "/v1/jobs/" + id + "/wait?timeout_s=120", kAcmeKey);
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_NE(done.json["status"], "succeeded") << done.body;

  HttpAnswer again = server_->Call("POST", "/v1/jobs", kAcmeKey, body.dump());
  ASSERT_EQ(again.status, 202) << again.body;
  EXPECT_FALSE(again.json.value("cached", false))
      << "the engine's kill was answered from the cache: " << again.body;
  EXPECT_EQ(
      server_->Call("DELETE", "/v1/jobs/" + again.json["id"].get<std::string>(), kAcmeKey).status,
      200);

  // A cancelled run is the caller's doing: not cached either.
  HttpAnswer c = server_->Call("POST", "/v1/jobs", kGlobexKey, body.dump());
  ASSERT_EQ(c.status, 202) << c.body;
  ASSERT_EQ(WaitRunning(kGlobexKey, c.json["id"]), "running");
  EXPECT_EQ(server_->Call("DELETE", "/v1/jobs/" + c.json["id"].get<std::string>(), kGlobexKey)
                .json["status"],
            "cancelled");
  HttpAnswer after = server_->Call("POST", "/v1/jobs", kGlobexKey, body.dump());
  ASSERT_EQ(after.status, 202) << after.body;
  EXPECT_FALSE(after.json.value("cached", false)) << after.body;
  server_->Call("DELETE", "/v1/jobs/" + after.json["id"].get<std::string>(), kGlobexKey);
}

}  // namespace
}  // namespace coderunner::testing
