// Authentication, tenant isolation, tier limits and fair scheduling on a
// real engine.
#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>

#include "coderunner/common/sha256.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

constexpr const char* kAcmeKey = "acme-key-0123456789";      // tier pro
constexpr const char* kGlobexKey = "globex-key-0123456789";  // tier free
constexpr const char* kTinyKey = "tiny-key-0123456789";      // tier tiny (rate 3/min)

class TenantsTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "auth:\n  mode: api_keys\n  keys:\n"
           "    - {tenant: acme, tier: pro, key_sha256: \"" +
           Sha256Hex(kAcmeKey) +
           "\"}\n"
           "    - {tenant: globex, tier: free, key_sha256: \"" +
           Sha256Hex(kGlobexKey) +
           "\"}\n"
           "    - {tenant: tiny, tier: tiny, key_sha256: \"" +
           Sha256Hex(kTinyKey) +
           "\"}\n"
           "tiers:\n"
           "  free: {max_concurrent: 1, max_queued: 3}\n"
           "  tiny: {requests_per_minute: 3}\n"
           "jobs: {max_concurrent: 3, cache_ttl_s: 0}\n";
  }

  HttpAnswer Call(const std::string& method, const std::string& path, const std::string& key,
                  const std::string& body = "") {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(120, 0);
    httplib::Headers h;
    if (!key.empty()) h.emplace("Authorization", "Bearer " + key);
    httplib::Result r = method == "GET"      ? c.Get(path.c_str(), h)
                        : method == "DELETE" ? c.Delete(path.c_str(), h)
                                             : c.Post(path.c_str(), h, body, "application/json");
    HttpAnswer a;
    if (!r) return a;
    a.status = r->status;
    a.body = r->body;
    a.json = nlohmann::json::parse(a.body, nullptr, false);
    if (a.json.is_discarded()) a.json = nullptr;
    retry_after_ = r->get_header_value("Retry-After");
    return a;
  }

  std::string retry_after_;
};

TEST_F(TenantsTest, RequestsWithoutAValidKeyAre401) {
  for (const char* key : {"", "wrong-key"}) {
    SCOPED_TRACE(key);
    HttpAnswer a = Call("POST", "/v1/execute", key, R"J({"code":"print(1)"})J");
    EXPECT_EQ(a.status, 401) << a.body;
    EXPECT_EQ(a.json["error"]["code"], "unauthenticated");
    EXPECT_EQ(Call("GET", "/v1/jobs", key).status, 401);
  }
  EXPECT_EQ(Call("GET", "/healthz", "").status, 200);
}

TEST_F(TenantsTest, ATierJobRunsWithinItsTierBoundsNotTheGlobalOnes) {
  // pro allows 120 s, above limits.max (60 s): the job passed the submit
  // check under its tier, so it must run under it too (the worker rebuilds
  // the job from its stored record).
  HttpAnswer a = Call("POST", "/v1/execute", kAcmeKey,
                      R"J({"code":"print(1)","limits":{"timeout_ms":90000}})J");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "succeeded") << a.body;
  EXPECT_EQ(a.json["limits"]["timeout_ms"], 90000) << a.body;
}

TEST_F(TenantsTest, ATenantSeesOnlyItsOwnJobsAndOthersAre404) {
  HttpAnswer sub = Call("POST", "/v1/jobs", kAcmeKey, R"J({"code":"print(1)"})J");
  ASSERT_EQ(sub.status, 202) << sub.body;
  std::string id = sub.json["id"];
  EXPECT_EQ(Call("GET", "/v1/jobs/" + id + "/wait?timeout_s=30", kAcmeKey).status, 200);
  for (const std::string& path :
       {"/v1/jobs/" + id, "/v1/jobs/" + id + "/wait?timeout_s=1", "/v1/jobs/" + id + "/events"}) {
    SCOPED_TRACE(path);
    HttpAnswer other = Call("GET", path, kGlobexKey);
    EXPECT_EQ(other.status, 404) << other.body;
  }
  EXPECT_EQ(Call("DELETE", "/v1/jobs/" + id, kGlobexKey).status, 404);
  EXPECT_EQ(Call("POST", "/v1/jobs/" + id + "/replay", kGlobexKey, "{}").status, 404);
  HttpAnswer list = Call("GET", "/v1/jobs", kGlobexKey);
  ASSERT_EQ(list.status, 200);
  EXPECT_TRUE(list.json["jobs"].empty()) << list.body;
  EXPECT_EQ(Call("GET", "/v1/jobs", kAcmeKey).json["jobs"].size(), 1u);
}

TEST_F(TenantsTest, LimitsAboveTheTierAre422NamingLimitAndTier) {
  // free allows 30 s; pro allows 120 s (above the global 60 s maximum).
  HttpAnswer a = Call("POST", "/v1/jobs", kGlobexKey,
                      R"J({"code":"print(1)","limits":{"timeout_ms":45000}})J");
  EXPECT_EQ(a.status, 422) << a.body;
  std::string msg = a.json["error"]["message"];
  EXPECT_NE(msg.find("tier free"), std::string::npos) << msg;
  EXPECT_NE(msg.find("limits.timeout_ms"), std::string::npos) << msg;
  HttpAnswer pro =
      Call("POST", "/v1/jobs", kAcmeKey, R"J({"code":"print(1)","limits":{"timeout_ms":90000}})J");
  EXPECT_EQ(pro.status, 202) << pro.body;
  Call("GET", "/v1/jobs/" + pro.json["id"].get<std::string>() + "/wait?timeout_s=30", kAcmeKey);
}

TEST_F(TenantsTest, TierQueueBoundIs429NamingTheTier) {
  int accepted = 0, refused = 0;
  std::vector<std::string> ids;
  for (int i = 0; i < 8; ++i) {
    HttpAnswer a =
        Call("POST", "/v1/jobs", kGlobexKey, R"J({"code":"import time; time.sleep(1)"})J");
    if (a.status == 202) {
      ++accepted;
      ids.push_back(a.json["id"]);
    } else {
      ++refused;
      EXPECT_EQ(a.status, 429) << a.body;
      EXPECT_EQ(a.json["error"]["code"], "tier_queue_full");
      EXPECT_NE(a.json["error"]["message"].get<std::string>().find("tier free"), std::string::npos);
      EXPECT_FALSE(retry_after_.empty());
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_LE(accepted, 4);  // 1 running + 3 queued.
  for (const auto& id : ids) {
    HttpAnswer w = Call("GET", "/v1/jobs/" + id + "/wait?timeout_s=60", kGlobexKey);
    EXPECT_EQ(w.json["status"], "succeeded") << w.body;
  }
}

TEST_F(TenantsTest, RequestRateAboveTheTierIs429WithRetryAfter) {
  int limited = 0;
  for (int i = 0; i < 5; ++i) {
    HttpAnswer a = Call("GET", "/v1/jobs", kTinyKey);
    if (a.status == 429) {
      ++limited;
      EXPECT_EQ(a.json["error"]["code"], "rate_limited");
      EXPECT_NE(a.json["error"]["message"].get<std::string>().find("requests_per_minute"),
                std::string::npos);
      EXPECT_FALSE(retry_after_.empty());
    }
  }
  EXPECT_EQ(limited, 2);  // 3 per minute.
}

TEST_F(TenantsTest, AFloodingTenantDoesNotStarveAnother) {
  // globex (free: one job at a time) floods; acme's job must not wait behind
  // the flood: it runs on another worker at once.
  std::vector<std::string> flood;
  for (int i = 0; i < 3; ++i) {
    HttpAnswer a =
        Call("POST", "/v1/jobs", kGlobexKey, R"J({"code":"import time; time.sleep(2)"})J");
    ASSERT_EQ(a.status, 202) << a.body;
    flood.push_back(a.json["id"]);
  }
  HttpAnswer mine = Call("POST", "/v1/jobs", kAcmeKey, R"J({"code":"print('fair')"})J");
  ASSERT_EQ(mine.status, 202) << mine.body;
  HttpAnswer done = Call(
      "GET", "/v1/jobs/" + mine.json["id"].get<std::string>() + "/wait?timeout_s=60", kAcmeKey);
  ASSERT_EQ(done.json["status"], "succeeded") << done.body;
  // When acme's job finished, globex's last job had not even started.
  HttpAnswer last = Call("GET", "/v1/jobs/" + flood.back(), kGlobexKey);
  EXPECT_TRUE(last.json["started_at"].is_null() || last.json["started_at"].get<std::string>() >=
                                                       done.json["finished_at"].get<std::string>())
      << last.body;
  for (const auto& id : flood) Call("GET", "/v1/jobs/" + id + "/wait?timeout_s=60", kGlobexKey);
}

}  // namespace
}  // namespace coderunner::testing
