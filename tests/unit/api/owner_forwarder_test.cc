// OwnerForwarder (src/api/owner_forwarder.h): the decision table, and the
// forwarder over a real registry and placements (a PostgreSQL job store, as
// in a fleet) with a recording relay: what it relays, what it answers, when
// it answers 410.
#include "api/owner_forwarder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/response_headers.h"
#include "coderunner/store/postgres/pg_job_store.h"
#include "pg/temp_postgres.h"
#include "unit/serve_in_background.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

constexpr int64_t kNowMs = 1'800'000'000'000;
constexpr int64_t kAliveMs = store::kNodeAliveHeartbeats * store::kNodeHeartbeatPeriodMs;
// Placed on node-b, on node-dead, and nowhere.
constexpr char kOnB[] = "sbx-0000000000000000000000b0";
constexpr char kOnDead[] = "sbx-0000000000000000000000d0";
constexpr char kUnplaced[] = "sbx-000000000000000000000000";
constexpr char kJob[] = "job-000000000000000000000001";

SandboxTarget Target(const std::string& id, SandboxRoute route = SandboxRoute::kRecord,
                     const std::string& file = "") {
  return SandboxTarget{route, id, file};
}

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
    auto conninfo = coderunner::testing::SharedPostgres().CreateDatabase();
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().ToString();
    conninfo_ = *conninfo;
    store::PgStoreOptions options;
    options.conninfo = conninfo_;
    options.max_connections = 2;
    auto opened = store::PgJobStore::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->Heartbeat(Node("node-a", 0), kNowMs - 1000).ok());
    ASSERT_TRUE(
        store_->Heartbeat(Node("node-b", 0, "http://b.internal:9000/"), kNowMs - 1000).ok());
    ASSERT_TRUE(store_->Heartbeat(Node("node-dead", 0), kNowMs - 60'000).ok());
    ASSERT_TRUE(store_->PlaceSandbox({kOnB, "acme", "node-b", 1}).ok());
    ASSERT_TRUE(store_->PlaceSandbox({kOnDead, "acme", "node-dead", 1}).ok());
    forwarder_ = std::make_unique<OwnerForwarder>(
        store_.get(), store_.get(), ForwarderOptions{"node-a", 5000, 4096, 900000},
        [] { return kNowMs; },
        [this](const RelayRequest& r) -> StatusOr<RelayResponse> {
          relayed_.push_back(r);
          if (!relay_error_.ok()) return relay_error_;
          return RelayResponse{201, "application/json", {{"Retry-After", "3"}}, R"({"from":"b"})"};
        },
        [this](RelayRequest r) -> StatusOr<Answer> {
          streamed_.push_back(r);
          if (!relay_error_.ok()) return relay_error_;
          return Answer::Text(200, "streamed", "application/connect+json");
        });
  }
  void TearDown() override {
    forwarder_.reset();
    store_.reset();
    if (!conninfo_.empty()) (void)coderunner::testing::SharedPostgres().DropDatabase(conninfo_);
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

  std::string conninfo_;
  std::unique_ptr<store::PgJobStore> store_;
  std::unique_ptr<OwnerForwarder> forwarder_;
  std::vector<RelayRequest> relayed_;
  std::vector<RelayRequest> streamed_;
  Status relay_error_;
};

TEST_F(OwnerForwarderTest, SandboxOnAnAliveOwnerIsRelayedThere) {
  httplib::Request req = Request("POST", std::string("/v1/sandboxes/") + kOnB + "/execute");
  req.params.emplace("a b", "c&d");
  req.body = R"j({"code":"print(1)"})j";
  auto got = forwarder_->ForSandbox("acme", Target(kOnB, SandboxRoute::kExecute),
                                    /*held_here=*/false, req);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  ASSERT_EQ(relayed_.size(), 1u);
  const RelayRequest& r = relayed_[0];
  EXPECT_EQ(r.method, "POST");
  // The registry's URL (its trailing '/' dropped) + the route's path; no query.
  EXPECT_EQ(r.url, std::string("http://b.internal:9000/v1/sandboxes/") + kOnB + "/execute");
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

// The relay goes to the path the route matched; the request's raw path and
// query never leave this node.
TEST_F(OwnerForwarderTest, RelaysThePathTheRouteMatchedNeverTheRawOne) {
  httplib::Request req = Request("GET", "/metrics");
  req.params.emplace("next", "/v1/nodes");
  auto got =
      forwarder_->ForSandbox("acme", Target(kOnB, SandboxRoute::kFile, "out/a b.txt"), false, req);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  got = forwarder_->ForArtifact("node-b", kJob, "r.csv", req);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(relayed_.size(), 2u);
  EXPECT_EQ(relayed_[0].url,
            std::string("http://b.internal:9000/v1/sandboxes/") + kOnB + "/files/out/a%20b.txt");
  EXPECT_EQ(relayed_[1].url,
            std::string("http://b.internal:9000/v1/jobs/") + kJob + "/artifacts/r.csv");
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
      {"held here", "acme", kOnB, true, false},
      {"hop header from a client or a node", "acme", kOnB, false, true},
      {"no placement", "acme", kUnplaced, false, false},
      {"another tenant's", "globex", kOnB, false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    httplib::Request req = Request("GET", "/v1/sandboxes/" + c.id);
    if (c.hop_header) req.headers.emplace(kForwardedByHeader, "node-b");
    auto got = forwarder_->ForSandbox(c.tenant, Target(c.id), c.held_here, req);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_FALSE(got->has_value());
  }
  EXPECT_TRUE(relayed_.empty());
}

// A route that relays itself (E2B's): its path and the headers it names
// (none other) to the owner, streamed; a caller without a tenant (a
// sandbox's token) finds the placement of any tenant, a caller with one
// only its own.
TEST_F(OwnerForwarderTest, ASandboxStreamGoesToItsOwnerWithTheNamedHeadersOnly) {
  static constexpr const char* kNamed[] = {"X-Access-Token", "E2b-Sandbox-Id"};
  struct Case {
    const char* name;
    std::string tenant;
    std::string id;
    bool held_here;
    bool hop_header;
    bool relayed;
  };
  const Case cases[] = {
      {"by token", "", kOnB, false, false, true},
      {"by its tenant's key", "acme", kOnB, false, false, true},
      {"another tenant's key", "globex", kOnB, false, false, false},
      {"held here", "", kOnB, true, false, false},
      {"hop header", "", kOnB, false, true, false},
      {"no placement", "", kUnplaced, false, false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    streamed_.clear();
    httplib::Request req = Request("POST", "/e2b/raw/path?steer=1");
    req.headers.emplace("X-Access-Token", "tok-1");
    req.headers.emplace("E2b-Sandbox-Id", c.id);
    req.headers.emplace("Cookie", "session=1");
    if (c.hop_header) req.headers.emplace(kForwardedByHeader, "node-b");
    req.body = "enveloped";
    auto got = forwarder_->ForSandboxStream(c.tenant, c.id, c.held_here,
                                            std::string("/e2b/process.Process/Start"), kNamed, req);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->has_value(), c.relayed);
    ASSERT_EQ(streamed_.size(), c.relayed ? 1u : 0u);
    if (!c.relayed) continue;
    const RelayRequest& r = streamed_[0];
    EXPECT_EQ(r.url, "http://b.internal:9000/e2b/process.Process/Start");
    EXPECT_EQ(r.body, "enveloped");
    EXPECT_EQ(r.headers, (std::vector<std::pair<std::string, std::string>>{
                             {"X-Access-Token", "tok-1"}, {"E2b-Sandbox-Id", c.id}}));
    EXPECT_EQ(r.timeout_ms, 900000);
    EXPECT_EQ(Header(**got, kNodeHeader), "node-b");
  }
  EXPECT_TRUE(relayed_.empty());
}

// To an E2B SDK a sandbox whose node is gone is a sandbox not found; a
// path its route refused goes nowhere.
TEST_F(OwnerForwarderTest, ASandboxStreamWhoseOwnerIsGoneIsNotFound) {
  static constexpr const char* kNone[] = {"X-Access-Token"};
  httplib::Request req = Request("POST", "/e2b/process.Process/List");
  auto gone = forwarder_->ForSandboxStream("", kOnDead, false, std::string("/e2b/x"), kNone, req);
  EXPECT_EQ(gone.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(gone.status().reason(), kReasonStateLost);
  EXPECT_NE(gone.status().message().find("node-dead"), std::string::npos);
  relay_error_ = UnavailableError("refused", kReasonOwnerUnreachable);
  auto died = forwarder_->ForSandboxStream("", kOnB, false, std::string("/e2b/x"), kNone, req);
  EXPECT_EQ(died.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(died.status().reason(), kReasonStateLost);
  relay_error_ = OkStatus();
  auto refused = forwarder_->ForSandboxStream(
      "", kOnB, false, InvalidArgumentError("dot", "invalid_path"), kNone, req);
  EXPECT_EQ(refused.status().reason(), "invalid_path");
  EXPECT_EQ(streamed_.size(), 1u);  // The one to node-b that found it dead.
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
      {"sandbox, owner dead", false, kOnDead, OkStatus(), 0, kReasonStateLost},
      {"sandbox, owner refuses", false, kOnB, UnavailableError("refused", kReasonOwnerUnreachable),
       1, kReasonStateLost},
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
    auto got = c.artifact ? forwarder_->ForArtifact(c.owner_or_id, kJob, "out.txt", req)
                          : forwarder_->ForSandbox("acme", Target(c.owner_or_id), false, req);
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
  auto got = forwarder_->ForArtifact("node-b", kJob, "out.txt", Request("GET", "/v1/x"));
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(got.status().reason(), kReasonForwardFailed);
}

TEST_F(OwnerForwarderTest, ArtifactHeldHereOrWithoutOwnerIsServedHere) {
  for (const char* owner : {"node-a", ""}) {
    auto got = forwarder_->ForArtifact(owner, kJob, "out.txt", Request("GET", "/v1/x"));
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

// A file path with dot segments (or another unsafe form) never leaves this
// node: it is refused as the owner would refuse it (400 invalid_path).
TEST_F(OwnerForwarderTest, UnsafeFilePathsAreRefusedBeforeAnyRelay) {
  const char* const files[] = {
      "../../../../metrics",
      "../../../openapi.json",
      "a/../../../../../v1/nodes",
      "./x",
      "x//y",
      "/etc/passwd",
      "x/..",
  };
  for (const char* file : files) {
    for (bool artifact : {false, true}) {
      SCOPED_TRACE(std::string(file) + (artifact ? " (artifact)" : " (sandbox)"));
      relayed_.clear();
      httplib::Request req =
          Request("GET", artifact ? std::string("/v1/jobs/") + kJob + "/artifacts/" + file
                                  : std::string("/v1/sandboxes/") + kOnB + "/files/" + file);
      auto got = artifact ? forwarder_->ForArtifact("node-b", kJob, file, req)
                          : forwarder_->ForSandbox("acme", Target(kOnB, SandboxRoute::kFile, file),
                                                   false, req);
      EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(got.status().reason(), "invalid_path");
      EXPECT_TRUE(relayed_.empty());
    }
  }
}

// The forwarder over CurlRelay and a real owner (an HTTP server on
// 127.0.0.1 that serves what a node would: /metrics, a sandbox file).
class OwnerForwarderOverHttpTest : public OwnerForwarderTest {
 protected:
  void SetUp() override {
    OwnerForwarderTest::SetUp();
    owner_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
      ++owner_requests_;
      std::lock_guard<std::mutex> lock(mu_);
      last_path_ = req.path;
      return httplib::Server::HandlerResponse::Unhandled;
    });
    for (const char* open_path : {"/metrics", "/openapi.json", "/v1/nodes"}) {
      owner_.Get(open_path, [](const httplib::Request&, httplib::Response& res) {
        res.set_content(kOwnerSecret, "text/plain");
      });
    }
    owner_.Get(R"(/v1/sandboxes/([^/]+)/files/(.+))",
               [](const httplib::Request& req, httplib::Response& res) {
                 for (const auto& [name, value] : DownloadHeaders(req.matches[2].str())) {
                   res.set_header(name, value);
                 }
                 AddApiSecurityHeaders(res);
                 res.set_content("file " + req.matches[2].str(), kDownloadContentType);
               });
    const int port = owner_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    thread_ = testutil::ServeInBackground(owner_);
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    ASSERT_TRUE(store_->Heartbeat(Node("node-http", 0, url), kNowMs - 1000).ok());
    ASSERT_TRUE(store_->PlaceSandbox({kSandbox, "acme", "node-http", 1}).ok());
    http_forwarder_ = std::make_unique<OwnerForwarder>(
        store_.get(), store_.get(), ForwarderOptions{"node-a", 5000, 1 << 20, 60000},
        [] { return kNowMs; }, CurlRelay);
  }
  void TearDown() override {
    owner_.stop();
    thread_.join();
    OwnerForwarderTest::TearDown();
  }
  StatusOr<std::optional<Answer>> GetFile(const std::string& file) {
    httplib::Request req =
        Request("GET", std::string("/v1/sandboxes/") + kSandbox + "/files/" + file);
    return http_forwarder_->ForSandbox("acme", Target(kSandbox, SandboxRoute::kFile, file), false,
                                       req);
  }

  static constexpr char kSandbox[] = "sbx-0123456789abcdef01234567";
  static constexpr char kOwnerSecret[] = "coderunner_jobs_total 42";
  httplib::Server owner_;
  std::thread thread_;
  std::atomic<int> owner_requests_{0};
  std::mutex mu_;
  std::string last_path_;
  std::unique_ptr<OwnerForwarder> http_forwarder_;
};

TEST_F(OwnerForwarderOverHttpTest, DotSegmentsNeverReachAnotherPathOnTheOwner) {
  for (const char* file : {"../../../../metrics", "../../../openapi.json", "../../../nodes",
                           "x/../../../../metrics"}) {
    SCOPED_TRACE(file);
    auto got = GetFile(file);
    ASSERT_FALSE(got.ok()) << (got->has_value() ? std::get<TextBody>((*got)->body).text : "");
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().reason(), "invalid_path");
    EXPECT_EQ(got.status().message().find(kOwnerSecret), std::string::npos);
  }
  EXPECT_EQ(owner_requests_.load(), 0);
}

// The owner's route sees the file name the caller's route matched, byte for
// byte, whatever characters it holds.
TEST_F(OwnerForwarderOverHttpTest, AFileNameReachesTheOwnerExactly) {
  for (const char* file : {"a b/%2e%2e/\xc3\xbc.txt", ".../x", "q?x=1#frag", "100%"}) {
    SCOPED_TRACE(file);
    auto got = GetFile(file);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ((*got)->status, 200);
    EXPECT_EQ(std::get<TextBody>((*got)->body).text, std::string("file ") + file);
  }
}

// A download relayed from its owner reaches the caller with the owner's
// headers: an attachment whose CSP sandboxes it, not the API's default.
TEST_F(OwnerForwarderOverHttpTest, ARelayedDownloadKeepsItsSandboxingHeaders) {
  auto got = GetFile("dir/page.html");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_EQ(last_path_, std::string("/v1/sandboxes/") + kSandbox + "/files/dir/page.html");
  httplib::Response res;
  WriteAnswer(res, std::move(**got));
  AddApiSecurityHeaders(res);  // As the server does after every route.
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, "file dir/page.html");
  EXPECT_EQ(res.get_header_value("Content-Type"), kDownloadContentType);
  for (const auto& [name, value] : DownloadHeaders("dir/page.html")) {
    SCOPED_TRACE(name);
    EXPECT_EQ(res.get_header_value_count(name), 1u);
    EXPECT_EQ(res.get_header_value(name), value);
  }
  EXPECT_EQ(res.get_header_value("Content-Security-Policy"), kDownloadCsp);
  EXPECT_EQ(res.get_header_value(kNodeHeader), "node-http");
}

}  // namespace
}  // namespace coderunner::api
