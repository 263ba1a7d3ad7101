// Every row of the error table of POST /v1/execute, against a live server.
#include <string>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using ApiErrorsTest = EngineTest;

TEST_F(ApiErrorsTest, BadRequestsGetTheDocumentedStatus) {
  struct Case {
    const char* name;
    std::string path;
    std::string body;
    int status;
    const char* code;
  };
  const Case cases[] = {
      {"malformed JSON", "/v1/execute", "{\"code\": ", 400, "invalid_json"},
      {"not an object", "/v1/execute", "[1,2]", 400, "invalid_request"},
      {"missing code", "/v1/execute", R"({"language":"python"})", 400, "invalid_request"},
      {"code not a string", "/v1/execute", R"({"code":42})", 400, "invalid_request"},
      {"args not strings", "/v1/execute", R"({"code":"1","args":[1]})", 400, "invalid_request"},
      {"limits not object", "/v1/execute", R"({"code":"1","limits":5})", 400, "invalid_request"},
      {"unknown field", "/v1/execute", R"({"code":"1","lang":"python"})", 400, "invalid_request"},
      {"path traversal", "/v1/execute",
       R"({"code":"1","files":[{"path":"../etc/x","content":""}]})", 400, "invalid_path"},
      {"absolute path", "/v1/execute", R"({"code":"1","files":[{"path":"/etc/x","content":""}]})",
       400, "invalid_path"},
      {"unknown language", "/v1/execute", R"({"code":"1","language":"cobol"})", 400,
       "unknown_language"},
      {"limit above maximum", "/v1/execute",
       R"({"code":"1","limits":{"memory_bytes":1099511627776}})", 422, "limit_exceeded"},
      {"unknown route", "/v1/nope", "{}", 404, "not_found"},
      {"deep nesting", "/v1/execute", std::string(200, '[') + std::string(200, ']'), 400,
       "json_too_deep"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    HttpAnswer a = server_->Post(c.path, c.body);
    EXPECT_EQ(a.status, c.status) << a.body;
    ASSERT_TRUE(a.json.is_object()) << a.body;
    EXPECT_EQ(a.json["error"]["code"], c.code) << a.body;
    EXPECT_TRUE(a.json["error"]["message"].is_string());
  }
}

TEST_F(ApiErrorsTest, UnknownLanguageListsTheKnownOnes) {
  HttpAnswer a = server_->Post("/v1/execute", R"({"code":"1","language":"cobol"})");
  EXPECT_EQ(a.status, 400);
  std::string msg = a.json["error"]["message"];
  for (const char* l : {"python", "javascript", "bash"}) EXPECT_NE(msg.find(l), std::string::npos);
}

TEST_F(ApiErrorsTest, LimitAboveMaximumNamesTheLimit) {
  HttpAnswer a = server_->Post("/v1/execute", R"({"code":"1","limits":{"pids":100000}})");
  EXPECT_EQ(a.status, 422);
  EXPECT_NE(a.json["error"]["message"].get<std::string>().find("limits.pids"), std::string::npos);
}

TEST_F(ApiErrorsTest, BodyOverTheLimitIs413) {
  std::string body = R"({"code":")" + std::string(3 << 20, 'a') + R"("})";
  HttpAnswer a = server_->Post("/v1/execute", body);
  EXPECT_EQ(a.status, 413) << a.body.substr(0, 200);
  ASSERT_TRUE(a.json.is_object());
  EXPECT_EQ(a.json["error"]["code"], "body_too_large");
}

TEST_F(ApiErrorsTest, EngineUnavailableIs503AndNotReady) {
  // A second server whose engine socket has nothing behind it.
  ServerProcess down("", "/tmp/coderunner-no-engine-here.sock");
  ASSERT_TRUE(down.started()) << down.log();
  HttpAnswer a = down.Post("/v1/execute", R"J({"code":"print(1)"})J");
  EXPECT_EQ(a.status, 503) << a.body;
  EXPECT_EQ(a.json["error"]["code"], "engine_unavailable") << a.body;
  HttpAnswer ready = down.Get("/readyz");
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_EQ(down.Get("/healthz").status, 200);
}

TEST_F(ApiErrorsTest, MissingImageIsNamedByReadyz) {
  ServerProcess missing(
      "languages:\n  python:\n    image: coderunner/not-built:0\n"
      "    file: main.py\n    command: [python3, '{file}']\n");
  ASSERT_TRUE(missing.started()) << missing.log();
  HttpAnswer ready = missing.Get("/readyz");
  EXPECT_EQ(ready.status, 503);
  EXPECT_NE(ready.body.find("coderunner/not-built:0"), std::string::npos) << ready.body;
  EXPECT_NE(missing.log().find("coderunner/not-built:0"), std::string::npos);
  HttpAnswer run = missing.Post("/v1/execute", R"J({"code":"print(1)"})J");
  EXPECT_EQ(run.status, 200) << run.body;
  EXPECT_EQ(run.json["status"], "error");
  EXPECT_EQ(run.json["error"]["code"], "image_missing") << run.body;
  EXPECT_EQ(CountContainers(missing.socket(), missing.instance()), 0);
}

}  // namespace
}  // namespace coderunner::testing
