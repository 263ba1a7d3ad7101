// CurlRelay (src/api/owner_forwarder.h) against a real HTTP server on
// 127.0.0.1: what reaches the owner, what comes back, and each failure.
#include <gtest/gtest.h>
#include <httplib.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api/owner_forwarder.h"

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
    // Bound and listening once this returns: connections queue until the
    // thread accepts them.
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
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

}  // namespace
}  // namespace coderunner::api
