// OwnerForwarder (src/api/owner_forwarder.h): the decision table, and the
// forwarder over a real registry and placements (a SQLite job store) with
// a recording relay: what it relays, what it answers, when it answers 410.
#include "api/owner_forwarder.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/store/sqlite_job_store.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

constexpr int64_t kNowMs = 1'800'000'000'000;
constexpr int64_t kAliveMs = store::kNodeAliveHeartbeats * store::kNodeHeartbeatPeriodMs;

store::NodeInfo Node(const std::string& id, int64_t heartbeat_ms, std::string url = "") {
  store::NodeInfo n;
  n.id = id;
  n.advertised_url = url.empty() ? "http://" + id + ":8080" : url;
  n.last_heartbeat_ms = heartbeat_ms;
  return n;
}

TEST(DecideForwardTest, Table) {
  const std::vector<store::NodeInfo> nodes = {
      Node("node-a", kNowMs - 1000),
      Node("node-b", kNowMs - 1000, "http://b.internal:9000/"),
      Node("node-dead", kNowMs - kAliveMs),  // Exactly at the bound: dead.
      Node("node-nourl", kNowMs - 1000),
  };
  std::vector<store::NodeInfo> with_empty_url = nodes;
  with_empty_url[3].advertised_url = "";
  struct Case {
    const char* name;
    std::string owner;
    bool held_here;
    bool forwarded;
    ForwardAction want;
    std::string want_url;
  };
  const Case cases[] = {
      {"held here", "node-b", true, false, ForwardAction::kServeHere, ""},
      {"hop header present", "node-b", false, true, ForwardAction::kServeHere, ""},
      {"hop header, owner dead", "node-dead", false, true, ForwardAction::kServeHere, ""},
      {"no owner recorded", "", false, false, ForwardAction::kServeHere, ""},
      {"owner is self", "node-a", false, false, ForwardAction::kServeHere, ""},
      {"owner alive", "node-b", false, false, ForwardAction::kForward, "http://b.internal:9000/"},
      {"owner dead", "node-dead", false, false, ForwardAction::kGone, ""},
      {"owner not registered", "node-z", false, false, ForwardAction::kGone, ""},
      {"owner without url", "node-nourl", false, false, ForwardAction::kGone, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ForwardDecision d =
        DecideForward("node-a", c.owner, c.held_here, c.forwarded, with_empty_url, kNowMs);
    EXPECT_EQ(d.action, c.want);
    EXPECT_EQ(d.owner_url, c.want_url);
  }
}

class OwnerForwarderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/coderunner-forward-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    auto opened = store::SqliteJobStore::Open(dir_ + "/jobs.db");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->Heartbeat(Node("node-a", 0), kNowMs - 1000).ok());
    ASSERT_TRUE(
        store_->Heartbeat(Node("node-b", 0, "http://b.internal:9000/"), kNowMs - 1000).ok());
    ASSERT_TRUE(store_->Heartbeat(Node("node-dead", 0), kNowMs - 60'000).ok());
    ASSERT_TRUE(store_->PlaceSandbox({"sbx-on-b", "acme", "node-b", 1}).ok());
    ASSERT_TRUE(store_->PlaceSandbox({"sbx-on-dead", "acme", "node-dead", 1}).ok());
    forwarder_ = std::make_unique<OwnerForwarder>(
        store_.get(), store_.get(), ForwarderOptions{"node-a", 5000, 4096}, [] { return kNowMs; },
        [this](const RelayRequest& r) -> StatusOr<RelayResponse> {
          relayed_.push_back(r);
          if (!relay_error_.ok()) return relay_error_;
          return RelayResponse{201, "application/json", {{"Retry-After", "3"}}, R"({"from":"b"})"};
        });
  }
  void TearDown() override {
    forwarder_.reset();
    store_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  static httplib::Request Request(const std::string& method, const std::string& path) {
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.headers.emplace("Authorization", "Bearer acme-key");
    req.headers.emplace("Content-Type", "application/json");
    return req;
  }
  static std::string Header(const Answer& a, const std::string& name) {
    for (const auto& [k, v] : a.headers) {
      if (k == name) return v;
    }
    return "";
  }
  static json ErrorOf(const Answer& a) { return std::get<nlohmann::json>(a.body)["error"]; }

  std::string dir_;
  std::unique_ptr<store::SqliteJobStore> store_;
  std::unique_ptr<OwnerForwarder> forwarder_;
  std::vector<RelayRequest> relayed_;
  Status relay_error_;
};

TEST_F(OwnerForwarderTest, SandboxOnAnAliveOwnerIsRelayedThere) {
  httplib::Request req = Request("POST", "/v1/sandboxes/sbx-on-b/execute");
  req.params.emplace("a b", "c&d");
  req.body = R"j({"code":"print(1)"})j";
  auto got = forwarder_->ForSandbox("acme", "sbx-on-b", /*held_here=*/false, req);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  ASSERT_EQ(relayed_.size(), 1u);
  const RelayRequest& r = relayed_[0];
  EXPECT_EQ(r.method, "POST");
  // The registry's URL (its trailing '/' dropped) + the path and query, re-encoded.
  EXPECT_EQ(r.url, "http://b.internal:9000/v1/sandboxes/sbx-on-b/execute?a%20b=c%26d");
  EXPECT_EQ(r.body, req.body);
  EXPECT_EQ(r.authorization, "Bearer acme-key");
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.forwarded_by, "node-a");
  EXPECT_EQ(r.timeout_ms, 5000);
  EXPECT_EQ(r.max_body_bytes, 4096u);
  const Answer& a = **got;
  EXPECT_EQ(a.status, 201);
  const auto& text = std::get<TextBody>(a.body);
  EXPECT_EQ(text.text, R"({"from":"b"})");
  EXPECT_EQ(text.content_type, "application/json");
  EXPECT_EQ(Header(a, kNodeHeader), "node-b");
  EXPECT_EQ(Header(a, "Retry-After"), "3");
}

TEST_F(OwnerForwarderTest, WhenNotToRelay) {
  struct Case {
    const char* name;
    std::string tenant;
    std::string id;
    bool held_here;
    bool hop_header;
  };
  const Case cases[] = {
      {"held here", "acme", "sbx-on-b", true, false},
      {"hop header from a client or a node", "acme", "sbx-on-b", false, true},
      {"no placement", "acme", "sbx-unknown", false, false},
      {"another tenant's", "globex", "sbx-on-b", false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    httplib::Request req = Request("GET", "/v1/sandboxes/" + c.id);
    if (c.hop_header) req.headers.emplace(kForwardedByHeader, "node-b");
    auto got = forwarder_->ForSandbox(c.tenant, c.id, c.held_here, req);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_FALSE(got->has_value());
  }
  EXPECT_TRUE(relayed_.empty());
}

TEST_F(OwnerForwarderTest, OwnerGoneIs410NamingTheNode) {
  struct Case {
    const char* name;
    bool artifact;
    std::string owner_or_id;
    Status relay_error;
    size_t want_relays;
    const char* want_reason;
  };
  const Case cases[] = {
      {"sandbox, owner dead", false, "sbx-on-dead", OkStatus(), 0, kReasonStateLost},
      {"sandbox, owner refuses", false, "sbx-on-b",
       UnavailableError("refused", kReasonOwnerUnreachable), 1, kReasonStateLost},
      {"artifact, owner dead", true, "node-dead", OkStatus(), 0, kReasonArtifactsGone},
      {"artifact, owner unregistered", true, "node-gone", OkStatus(), 0, kReasonArtifactsGone},
      {"artifact, owner refuses", true, "node-b",
       UnavailableError("refused", kReasonOwnerUnreachable), 1, kReasonArtifactsGone},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    relayed_.clear();
    relay_error_ = c.relay_error;
    httplib::Request req = Request("GET", "/v1/x");
    auto got = c.artifact ? forwarder_->ForArtifact(c.owner_or_id, "job-1", req)
                          : forwarder_->ForSandbox("acme", c.owner_or_id, false, req);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ((*got)->status, 410);
    json error = ErrorOf(**got);
    EXPECT_EQ(error["code"], c.want_reason);
    EXPECT_NE(error["message"].get<std::string>().find("node-"), std::string::npos);
    EXPECT_EQ(Header(**got, kNodeHeader), "node-a");
    EXPECT_EQ(relayed_.size(), c.want_relays);
  }
}

TEST_F(OwnerForwarderTest, ARelayFailingMidwayIsAnErrorNotA410) {
  relay_error_ = DeadlineExceededError("slow", kReasonForwardFailed);
  auto got = forwarder_->ForArtifact("node-b", "job-1", Request("GET", "/v1/x"));
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(got.status().reason(), kReasonForwardFailed);
}

TEST_F(OwnerForwarderTest, ArtifactHeldHereOrWithoutOwnerIsServedHere) {
  for (const char* owner : {"node-a", ""}) {
    auto got = forwarder_->ForArtifact(owner, "job-1", Request("GET", "/v1/x"));
    ASSERT_TRUE(got.ok());
    EXPECT_FALSE(got->has_value());
  }
  EXPECT_TRUE(relayed_.empty());
}

TEST_F(OwnerForwarderTest, PlaceHereAndForgetWriteTheStore) {
  ASSERT_TRUE(forwarder_->PlaceHere("acme", "sbx-new").ok());
  auto placed = store_->SandboxOwner("sbx-new", "acme");
  ASSERT_TRUE(placed.ok() && placed->has_value());
  EXPECT_EQ((*placed)->node, "node-a");
  EXPECT_EQ((*placed)->created_ms, kNowMs);
  ASSERT_TRUE(forwarder_->Forget("sbx-new").ok());
  placed = store_->SandboxOwner("sbx-new", "acme");
  ASSERT_TRUE(placed.ok());
  EXPECT_FALSE(placed->has_value());
}

}  // namespace
}  // namespace coderunner::api
