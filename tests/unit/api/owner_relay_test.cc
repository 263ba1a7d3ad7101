// CurlRelay (src/api/owner_forwarder.h) against a real HTTP server on
// 127.0.0.1: what reaches the owner, what comes back, and each failure.
#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api/owner_forwarder.h"
#include "api/response_headers.h"
#include "unit/serve_in_background.h"

namespace coderunner::api {
namespace {

class OwnerRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.status = 201;
      res.set_header("Content-Disposition", "attachment; filename=\"out.bin\"");
      res.set_header("Retry-After", "7");
      res.set_header("X-Not-Relayed", "1");
      res.set_content(req.get_header_value("Authorization") + "|" +
                          req.get_header_value("Content-Type") + "|" +
                          req.get_header_value(kForwardedByHeader) + "|" +
                          req.get_param_value("q") + "|" + req.body,
                      "text/plain");
    });
    server_.Get("/big", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(10000, 'x'), "application/octet-stream");
    });
    server_.Get("/hang", [this](const httplib::Request&, httplib::Response& res) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return released_; });
      res.set_content("late", "text/plain");
    });
    server_.Get("/metrics", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(kOwnerMetrics, "text/plain");
    });
    server_.Get(R"(/v1/raw/.*)", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.path, "text/plain");
    });
    server_.Get("/download", [](const httplib::Request&, httplib::Response& res) {
      for (const auto& [name, value] : DownloadHeaders("page.html")) res.set_header(name, value);
      AddApiSecurityHeaders(res);
      res.set_content("<script>alert(1)</script>", kDownloadContentType);
    });
    // Bound and listening once this returns: connections queue until the
    // thread accepts them.
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = testutil::ServeInBackground(server_);
  }
  void TearDown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
    server_.stop();
    thread_.join();
  }
  RelayRequest Make(const std::string& method, const std::string& path) {
    RelayRequest r;
    r.method = method;
    r.url = "http://127.0.0.1:" + std::to_string(port_) + path;
    r.forwarded_by = "node-a";
    r.timeout_ms = 10000;
    r.max_body_bytes = 4096;
    return r;
  }

  static constexpr char kOwnerMetrics[] = "coderunner_jobs_total 42";

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
};

TEST_F(OwnerRelayTest, RelaysMethodHeadersQueryAndBodyAndReadsTheAnswer) {
  RelayRequest r = Make("POST", "/echo?q=v%201");
  r.authorization = "Bearer k";
  r.content_type = "application/json";
  r.body = R"({"code":"x"})";
  auto got = CurlRelay(r);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->status, 201);
  EXPECT_EQ(got->content_type, "text/plain");
  using Headers = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(got->headers, (Headers{{"Content-Disposition", "attachment; filename=\"out.bin\""},
                                   {"Retry-After", "7"}}));
  EXPECT_EQ(got->body, R"(Bearer k|application/json|node-a|v 1|{"code":"x"})");
}

TEST_F(OwnerRelayTest, NonSuccessStatusesAreRelayedAsIs) {
  auto got = CurlRelay(Make("GET", "/no-such-route"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->status, 404);
}

TEST_F(OwnerRelayTest, Failures) {
  RelayRequest big = Make("GET", "/big");
  RelayRequest refused = Make("GET", "/echo");
  refused.url = "http://127.0.0.1:1/echo";  // Nothing listens on port 1.
  RelayRequest hang = Make("GET", "/hang");
  hang.timeout_ms = 300;
  struct Case {
    const char* name;
    RelayRequest req;
    StatusCode want_code;
    const char* want_reason;
  };
  const Case cases[] = {
      {"answer over the bound", big, StatusCode::kInternal, kReasonForwardFailed},
      {"connection refused", refused, StatusCode::kUnavailable, kReasonOwnerUnreachable},
      {"owner hangs", hang, StatusCode::kDeadlineExceeded, kReasonForwardFailed},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = CurlRelay(c.req);
    EXPECT_EQ(got.status().code(), c.want_code) << got.status().ToString();
    EXPECT_EQ(got.status().reason(), c.want_reason);
  }
}

// libcurl removes dot segments from a URL's path unless told not to: the
// relay sends the path it was given, byte for byte.
TEST_F(OwnerRelayTest, SendsThePathAsIsWithoutRemovingDotSegments) {
  for (const char* path :
       {"/v1/raw/files/../../../metrics", "/v1/raw/./files/x/../../../metrics"}) {
    SCOPED_TRACE(path);
    auto got = CurlRelay(Make("GET", path));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->status, 200);
    EXPECT_EQ(got->body, path);  // What the owner's route saw.
    EXPECT_EQ(got->body.find(kOwnerMetrics), std::string::npos);
  }
}

// httplib answers a HEAD on a GET route: its relay reads the status and
// headers and does not wait for a body that never comes.
TEST_F(OwnerRelayTest, HeadIsRelayedWithoutWaitingForABody) {
  RelayRequest head = Make("HEAD", "/big");
  head.timeout_ms = 3000;
  auto got = CurlRelay(head);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->content_type, "application/octet-stream");
  EXPECT_EQ(got->body, "");
}

// Sets one environment variable for the life of the object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A proxy named in the service's environment never sees a relay: the
// request goes straight to the owner.
TEST_F(OwnerRelayTest, IgnoresProxiesFromTheEnvironment) {
  httplib::Server proxy;
  std::atomic<int> proxied{0};
  proxy.set_pre_routing_handler([&proxied](const httplib::Request&, httplib::Response& res) {
    ++proxied;
    res.status = 502;
    res.set_content("via the proxy", "text/plain");
    return httplib::Server::HandlerResponse::Handled;
  });
  const int proxy_port = proxy.bind_to_any_port("127.0.0.1");
  ASSERT_GT(proxy_port, 0);
  std::thread proxy_thread = testutil::ServeInBackground(proxy);
  const std::string proxy_url = "http://127.0.0.1:" + std::to_string(proxy_port);
  for (const char* var : {"http_proxy", "all_proxy", "ALL_PROXY"}) {
    SCOPED_TRACE(var);
    ScopedEnv no_proxy("no_proxy", std::nullopt);
    ScopedEnv no_proxy_upper("NO_PROXY", std::nullopt);
    ScopedEnv set(var, proxy_url);
    RelayRequest r = Make("POST", "/echo");
    r.body = "hello";
    auto got = CurlRelay(r);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(got->status, 201);
    EXPECT_EQ(got->body, "||node-a||hello");
  }
  EXPECT_EQ(proxied.load(), 0);
  proxy.stop();
  proxy_thread.join();
}

// A download keeps every security header its owner sends, exactly.
TEST_F(OwnerRelayTest, RelaysTheOwnersSecurityHeaders) {
  auto got = CurlRelay(Make("GET", "/download"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->content_type, kDownloadContentType);
  auto header = [&got](const std::string& name) -> std::string {
    for (const auto& [k, v] : got->headers) {
      if (k == name) return v;
    }
    return "(absent)";
  };
  EXPECT_EQ(header("Content-Security-Policy"), kDownloadCsp);
  EXPECT_EQ(header("X-Content-Type-Options"), kNoSniff);
  EXPECT_EQ(header("Content-Disposition"), ContentDisposition("page.html"));
  EXPECT_EQ(header("X-Frame-Options"), "DENY");
  EXPECT_EQ(header("Referrer-Policy"), "no-referrer");
}

// Every header the owner adds to keep an answer from running as a page
// (those of every answer and those of a download) is one the relay keeps.
TEST(RelayedHeadersTest, IncludeEverySecurityHeaderAnOwnerSends) {
  httplib::Response res;
  AddApiSecurityHeaders(res);
  std::vector<std::string> names;
  for (const auto& [name, value] : res.headers) names.push_back(name);
  for (const auto& [name, value] : DownloadHeaders("x")) names.push_back(name);
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    EXPECT_NE(std::find(std::begin(kRelayedHeaders), std::end(kRelayedHeaders), name),
              std::end(kRelayedHeaders));
  }
}

}  // namespace
}  // namespace coderunner::api
