// One tenant's long requests cannot take the HTTP threads from another, a
// flood of cache hits meets the tier's queue bound, and anonymous probes
// cannot hammer the engine.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

constexpr const char* kAcmeKey = "acme-fair-key-0123456789";      // tier small
constexpr const char* kGlobexKey = "globex-fair-key-0123456789";  // tier pro

class FairnessTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    // 8 HTTP threads, and a tenant may hold 2 long requests. Probes answer
    // from a cache that outlives the test, so a flood may make one engine
    // check per route at most. Nothing else talks to the engine meanwhile
    // (no pool, no janitor sweep).
    return "server: {listen: 127.0.0.1:0, threads: 8, long_requests_per_tenant: 2, "
           "probe_cache_ms: 600000}\n" +
           ApiKeysYaml({{"acme", "small", kAcmeKey}, {"globex", "pro", kGlobexKey}}) +
           "tiers:\n  small: {max_concurrent: 2, max_queued: 3}\n"
           "pool: {enabled: false}\n"
           "jobs: {max_concurrent: 4, janitor_interval_s: 3600}\n";
  }

  HttpAnswer Call(const std::string& method, const std::string& path, const std::string& key,
                  const json& body = nullptr) {
    return server_->Call(method, path, key, body.is_null() ? "" : body.dump());
  }

  static json Sleeper(int s) {
    return {{"language", "python"},
            {"code", "import time\ntime.sleep(" + std::to_string(s) + ")"},
            {"cache", false},
            {"limits", {{"timeout_ms", 30000}}}};
  }

  // Sum of every sample of `family` in /metrics (0 if none).
  double Metric(const std::string& family) {
    std::istringstream in(server_->Get("/metrics").body);
    double sum = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(family, 0) != 0) continue;
      char next = line.size() > family.size() ? line[family.size()] : '\0';
      if (next != ' ' && next != '{') continue;
      sum += std::stod(line.substr(line.rfind(' ') + 1));
    }
    return sum;
  }

  // Waits (generously) until `family` reads `value`.
  bool WaitMetric(const std::string& family, double value) {
    for (auto until = steady_clock::now() + seconds(90); steady_clock::now() < until;) {
      if (Metric(family) == value) return true;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return false;
  }

  bool WaitStatus(const std::string& key, const std::string& id, const std::string& status) {
    for (auto until = steady_clock::now() + seconds(120); steady_clock::now() < until;) {
      if (Call("GET", "/v1/jobs/" + id, key).json.value("status", "") == status) return true;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return false;
  }

  static void ExpectTooManyLongRequests(const HttpAnswer& a) {
    EXPECT_EQ(a.status, 429) << a.body.substr(0, 300);
    json error = a.json.is_object() && a.json.contains("error") && a.json["error"].is_object()
                     ? a.json["error"]
                     : json::object();
    EXPECT_EQ(error.value("code", ""), "too_many_long_requests") << a.body.substr(0, 300);
    std::string msg = error.value("message", "");
    EXPECT_NE(msg.find("acme already holds 2 long requests"), std::string::npos) << msg;
    EXPECT_NE(msg.find("server.long_requests_per_tenant"), std::string::npos) << msg;
    EXPECT_FALSE(a.headers.count("retry-after") == 0) << a.body;
  }
};

TEST_F(FairnessTest, ATenantHoldingItsLongRequestsIsRefusedAndAnotherIsServed) {
  // acme holds its 2 long requests: a /v1/execute and a /wait, each on a
  // job that sleeps.
  // jthreads: joined whatever an expectation or exception does below.
  std::atomic<int> execute_status{0};
  std::jthread execute(
      [&] { execute_status = Call("POST", "/v1/execute", kAcmeKey, Sleeper(25)).status; });
  HttpAnswer sub = Call("POST", "/v1/jobs", kAcmeKey, Sleeper(25));
  EXPECT_EQ(sub.status, 202) << sub.body;
  const std::string waited = sub.json.value("id", "");
  std::atomic<int> wait_status{0};
  std::jthread wait([&] {
    wait_status = Call("GET", "/v1/jobs/" + waited + "/wait?timeout_s=120", kAcmeKey).status;
  });
  EXPECT_TRUE(WaitMetric("coderunner_long_requests", 2)) << server_->log();

  // Its next long request of each kind is refused at once, naming the limit.
  ExpectTooManyLongRequests(Call("GET", "/v1/jobs/" + waited + "/wait?timeout_s=1", kAcmeKey));
  ExpectTooManyLongRequests(Call("GET", "/v1/jobs/" + waited + "/events", kAcmeKey));
  ExpectTooManyLongRequests(
      Call("POST", "/v1/execute", kAcmeKey, {{"language", "python"}, {"code", "print(1)"}}));
  // Its short requests still work.
  EXPECT_EQ(Call("GET", "/v1/jobs/" + waited, kAcmeKey).status, 200);

  // globex is served meanwhile: its job runs and its long requests answer.
  HttpAnswer mine = Call("POST", "/v1/execute", kGlobexKey,
                         {{"language", "python"}, {"code", "print('fair')"}, {"cache", false}});
  EXPECT_EQ(mine.status, 200) << mine.body;
  EXPECT_EQ(mine.json["status"], "succeeded") << mine.body;
  EXPECT_EQ(mine.json["stdout"], "fair\n");
  HttpAnswer async = Call("POST", "/v1/jobs", kGlobexKey,
                          {{"language", "python"}, {"code", "print('also')"}, {"cache", false}});
  EXPECT_EQ(async.status, 202) << async.body;
  HttpAnswer waited_b =
      Call("GET", "/v1/jobs/" + async.json.value("id", "") + "/wait?timeout_s=120", kGlobexKey);
  EXPECT_EQ(waited_b.status, 200) << waited_b.body;
  EXPECT_EQ(Metric("coderunner_long_requests"), 2) << "acme's two are still held";

  // acme's jobs end; its requests return and free their slots.
  HttpAnswer running = Call("GET", "/v1/jobs?status=running", kAcmeKey);
  for (const auto& j : running.json["jobs"]) {
    Call("DELETE", "/v1/jobs/" + j["id"].get<std::string>(), kAcmeKey);
  }
  Call("DELETE", "/v1/jobs/" + waited, kAcmeKey);
  execute.join();
  wait.join();
  EXPECT_EQ(execute_status, 200);
  EXPECT_EQ(wait_status, 200);
  ASSERT_TRUE(WaitMetric("coderunner_long_requests", 0));
  HttpAnswer later = Call("POST", "/v1/execute", kAcmeKey,
                          {{"language", "python"}, {"code", "print(2)"}, {"cache", false}});
  EXPECT_EQ(later.status, 200) << later.body;
}

TEST_F(FairnessTest, CacheHitsCountAgainstTheTiersMaxQueued) {
  const json hit = {{"language", "python"}, {"code", "print('hit me')"}};
  HttpAnswer first = Call("POST", "/v1/execute", kAcmeKey, hit);
  ASSERT_EQ(first.status, 200) << first.body;
  ASSERT_EQ(first.json["cached"], false);

  // A batch of hits is admitted as if each were queued: small allows 3.
  HttpAnswer batch =
      Call("POST", "/v1/jobs/batch", kAcmeKey, {{"jobs", json::array({hit, hit, hit, hit, hit})}});
  ASSERT_EQ(batch.status, 202) << batch.body;
  int cached = 0, refused = 0;
  for (const auto& j : batch.json["jobs"]) {
    if (j.value("cached", false)) ++cached;
    if (j.contains("error")) {
      ++refused;
      EXPECT_EQ(j["error"]["code"], "tier_queue_full") << j.dump();
    }
  }
  EXPECT_EQ(cached, 3) << batch.body;
  EXPECT_EQ(refused, 2) << batch.body;

  // With its queue full (2 running, 3 waiting), a hit is refused like any
  // other job.
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i)
    ids.push_back(Call("POST", "/v1/jobs", kAcmeKey, Sleeper(25)).json["id"]);
  for (const auto& id : ids) ASSERT_TRUE(WaitStatus(kAcmeKey, id, "running"));
  for (int i = 0; i < 3; ++i) {
    HttpAnswer q = Call("POST", "/v1/jobs", kAcmeKey, Sleeper(25));
    ASSERT_EQ(q.status, 202) << q.body;
    ids.push_back(q.json["id"]);
  }
  for (const char* route : {"/v1/jobs", "/v1/execute"}) {
    SCOPED_TRACE(route);
    HttpAnswer a = Call("POST", route, kAcmeKey, hit);
    EXPECT_EQ(a.status, 429) << a.body;
    EXPECT_EQ(a.json["error"]["code"], "tier_queue_full") << a.body;
  }
  // Another tenant's identical request is not affected (and not a hit).
  HttpAnswer other = Call("POST", "/v1/execute", kGlobexKey, hit);
  EXPECT_EQ(other.status, 200) << other.body;
  EXPECT_EQ(other.json["cached"], false) << other.body;
  for (const auto& id : ids) Call("DELETE", "/v1/jobs/" + id, kAcmeKey);
}

TEST_F(FairnessTest, AnAnonymousProbeFloodMakesAtMostOneEngineCheckPerRoute) {
  HttpAnswer langs = server_->Get("/v1/languages");
  ASSERT_EQ(langs.status, 200) << langs.body;
  const int languages = static_cast<int>(langs.json["languages"].size());
  ASSERT_GT(languages, 0);
  const double before = Metric("coderunner_engine_requests_total");

  constexpr int kThreads = 8;
  constexpr int kEach = 25;
  std::atomic<int> ok{0};
  std::vector<std::thread> flood;
  for (int t = 0; t < kThreads; ++t) {
    flood.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const char* path = (i + t) % 2 == 0 ? "/readyz" : "/v1/languages";
        if (server_->Get(path).status == 200) ++ok;
      }
    });
  }
  for (auto& t : flood) t.join();
  EXPECT_EQ(ok, kThreads * kEach);
  const double made = Metric("coderunner_engine_requests_total") - before;
  // /readyz: one ping and one inspect per language, once; /v1/languages was
  // answered before the flood. A few calls of slack for anything else.
  EXPECT_LE(made, 1 + languages + 4)
      << "engine requests during a flood of " << kThreads * kEach << " probes";
  std::cout << "[ figures ] " << kThreads * kEach << " anonymous probes made " << made
            << " engine requests\n";
}

}  // namespace
}  // namespace coderunner::testing
