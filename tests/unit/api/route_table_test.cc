#include "coderunner/api/route_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "unit/serve_in_background.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

TEST(OpenApiPathTest, CaptureGroupsBecomeTemplates) {
  struct Case {
    const char* pattern;
    const char* path;
  };
  const Case cases[] = {
      {"/healthz", "/healthz"},
      {"/v1/jobs/(job-[0-9a-f]{24})", "/v1/jobs/{id}"},
      {"/v1/jobs/(job-[0-9a-f]{24})/wait", "/v1/jobs/{id}/wait"},
      {"/v1/jobs/(job-[0-9a-f]{24})/artifacts/(.+)", "/v1/jobs/{id}/artifacts/{path}"},
      {"/v1/volumes/([A-Za-z0-9_-]+)/files/(.*)", "/v1/volumes/{id}/files/{path}"},
      {"/api/v2/runtimes", "/api/v2/runtimes"},
  };
  for (const auto& c : cases) EXPECT_EQ(OpenApiPath(c.pattern), c.path) << c.pattern;
}

// Answers a refused body as the Server does: status and {"error":{code}}.
BodyPolicy TestPolicy(int max_depth, int64_t max_bytes) {
  BodyPolicy policy;
  policy.bounds.max_depth = max_depth;
  policy.bounds.max_bytes = max_bytes;
  policy.reply_error = [](const httplib::Request&, httplib::Response& res, const Status& s) {
    res.status = s.reason() == kJsonTooLarge ? 413 : 400;
    res.set_content(json{{"error", {{"code", s.reason()}, {"message", s.message()}}}}.dump(),
                    "application/json");
  };
  // Stands in for the Server's key check: the caller is X-Caller's tenant.
  policy.admit = [](const httplib::Request& req, httplib::Response& res, Admission& admission) {
    if (req.has_header("X-Caller")) {
      admission.caller = auth::Principal{req.get_header_value("X-Caller")};
    }
    if (!req.has_header("X-Refuse")) return true;
    res.status = 401;
    res.set_content(R"({"error":{"code":"unauthenticated","message":"no"}})", "application/json");
    return false;
  };
  return policy;
}

TEST(RouteTableTest, RecordsEveryRegistrationInOrder) {
  httplib::Server http;
  RouteTable table(http, TestPolicy(8, 1 << 20));
  auto handler = [](const httplib::Request&, httplib::Response&) {};
  table.Get("/a", handler).Post("/b/(x-[0-9]+)", handler).Delete("/b/(x-[0-9]+)", handler);
  ASSERT_EQ(table.routes().size(), 3u);
  EXPECT_EQ(table.routes()[0].method, "GET");
  EXPECT_FALSE(table.routes()[0].body);
  EXPECT_EQ(table.routes()[1].method, "POST");
  EXPECT_EQ(table.routes()[1].pattern, "/b/(x-[0-9]+)");
  EXPECT_TRUE(table.routes()[1].body);
  EXPECT_EQ(table.routes()[2].method, "DELETE");
  EXPECT_EQ(table.routes()[2].path, "/b/{id}");
  EXPECT_TRUE(table.routes()[2].body);
}

// A RouteTable served on loopback, each handler counting its calls and
// echoing what it was given.
class BodyCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto plain = [this](const httplib::Request& req, httplib::Response& res) {
      ++calls_;
      res.set_content(json{{"raw", req.body}}.dump(), "application/json");
    };
    auto parsed = [this](const httplib::Request&, httplib::Response& res, const json& body) {
      ++calls_;
      res.set_content(json{{"parsed", body}}.dump(), "application/json");
    };
    // Echoes the caller admission handed over ("" for none).
    auto admitted = [this](const httplib::Request&, httplib::Response& res, const json& body,
                           const Admission& admission) {
      ++calls_;
      json caller = admission.caller ? json(admission.caller->tenant) : json("");
      res.set_content(json{{"parsed", body}, {"caller", caller}}.dump(), "application/json");
    };
    table_.Post("/plain", plain).Post("/parsed", parsed);
    table_.Delete("/plain", plain).Delete("/parsed", parsed);
    table_.Get("/admitted", admitted).Post("/admitted", admitted).Delete("/admitted", admitted);
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = testutil::ServeInBackground(http_);
  }

  void TearDown() override {
    http_.stop();
    thread_.join();
  }

  httplib::Result Send(const std::string& method, const std::string& path, const std::string& body,
                       const httplib::Headers& headers = {}) {
    httplib::Client c("127.0.0.1", port_);
    if (method == "GET") return c.Get(path.c_str(), headers);
    if (method == "DELETE") return c.Delete(path.c_str(), headers, body, "application/json");
    return c.Post(path.c_str(), headers, body, "application/json");
  }

  httplib::Server http_;
  RouteTable table_{http_, TestPolicy(4, 64)};
  std::atomic<int> calls_{0};
  int port_ = 0;
  std::thread thread_;
};

TEST_F(BodyCheckTest, EveryBodyRouteGetsOnlyBoundedJson) {
  struct Case {
    const char* name;
    std::string body;
    int status;
    const char* code;  // nullptr: the handler ran.
  };
  const Case cases[] = {
      {"no body", "", 200, nullptr},
      {"object", R"({"a":[1,{"b":2}]})", 200, nullptr},
      {"at the depth bound", "[[[[1]]]]", 200, nullptr},
      {"one level too deep", "[[[[[1]]]]]", 400, "json_too_deep"},
      {"deep objects", R"({"a":{"a":{"a":{"a":{"a":1}}}}})", 400, "json_too_deep"},
      {"malformed", "{\"a\":", 400, "invalid_json"},
      {"not JSON at all", "hello", 400, "invalid_json"},
      {"invalid UTF-8", "\"\xFF\"", 400, "invalid_json"},
      {"over the size bound", "[" + std::string(70, '1') + "]", 413, "json_too_large"},
  };
  for (const auto& c : cases) {
    for (const char* method : {"POST", "DELETE"}) {
      for (const char* path : {"/plain", "/parsed"}) {
        SCOPED_TRACE(std::string(c.name) + ": " + method + " " + path);
        int before = calls_;
        auto r = Send(method, path, c.body);
        ASSERT_TRUE(r) << "no answer";
        EXPECT_EQ(r->status, c.status) << r->body;
        json answer = json::parse(r->body, nullptr, false);
        ASSERT_TRUE(answer.is_object()) << r->body;
        if (c.code != nullptr) {
          EXPECT_EQ(calls_, before) << "the handler ran";
          EXPECT_EQ(answer["error"]["code"], c.code) << r->body;
          EXPECT_EQ(answer["error"]["message"].get<std::string>().rfind("request body: ", 0), 0u);
        } else if (std::string(path) == "/parsed") {
          EXPECT_EQ(calls_, before + 1);
          EXPECT_EQ(answer["parsed"], c.body.empty() ? json() : json::parse(c.body));
        } else {
          EXPECT_EQ(calls_, before + 1);
          EXPECT_EQ(answer["raw"], c.body);
        }
      }
    }
  }
}

TEST_F(BodyCheckTest, ACallerTheGateRefusesHasNoBodyParsed) {
  struct Case {
    const char* name;
    std::string body;
    int status;
    bool handler_runs;
  };
  const Case cases[] = {
      {"no body: nothing to parse, the handler decides", "", 200, true},
      {"valid body", "[1]", 401, false},
      {"deep body", std::string(100000, '['), 401, false},
      {"invalid UTF-8", "\"\xFF\"", 401, false},
  };
  for (const auto& c : cases) {
    for (const char* method : {"POST", "DELETE"}) {
      SCOPED_TRACE(std::string(c.name) + ": " + method);
      int before = calls_;
      auto r = Send(method, "/parsed", c.body, {{"X-Refuse", "1"}});
      ASSERT_TRUE(r) << "no answer";
      EXPECT_EQ(r->status, c.status) << r->body;
      EXPECT_EQ(calls_, before + (c.handler_runs ? 1 : 0));
    }
  }
}

// The caller admission found travels with the request to the handler, so
// that it is not looked up again; a request admission never saw (a GET, no
// body) reaches its handler with none.
TEST_F(BodyCheckTest, TheCallerAdmissionFoundReachesTheHandler) {
  struct Case {
    const char* method;
    std::string body;
    const char* caller;  // The handler's Admission::caller ("" for none).
  };
  const Case cases[] = {
      {"POST", R"({"a":1})", "acme"},
      {"DELETE", "[1]", "acme"},
      {"POST", "", ""},
      {"DELETE", "", ""},
      {"GET", "", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.method) + " with body '" + c.body + "'");
    int before = calls_;
    auto r = Send(c.method, "/admitted", c.body, {{"X-Caller", "acme"}});
    ASSERT_TRUE(r) << "no answer";
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(calls_, before + 1);
    json answer = json::parse(r->body);
    EXPECT_EQ(answer["caller"], c.caller);
    EXPECT_EQ(answer["parsed"], c.body.empty() ? json() : json::parse(c.body));
  }
}

}  // namespace
}  // namespace coderunner::api
