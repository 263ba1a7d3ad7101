// StatusFromHttp and the transport errors of ApiClient (no service needed:
// the unreachable one is a closed port).
#include "cli/api_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace coderunner::cli {
namespace {

using ::testing::HasSubstr;

struct HttpCase {
  const char* name;
  int http_status;
  const char* body;
  StatusCode code;
  const char* reason;
  const char* message;
};

class StatusFromHttpTest : public ::testing::TestWithParam<HttpCase> {};

TEST_P(StatusFromHttpTest, KeepsTheServersMessage) {
  const HttpCase& c = GetParam();
  Status s = StatusFromHttp(c.http_status, c.body);
  EXPECT_EQ(s.code(), c.code);
  EXPECT_EQ(s.reason(), c.reason);
  EXPECT_EQ(s.message(), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, StatusFromHttpTest,
    ::testing::Values(
        HttpCase{"bad_request", 400,
                 R"({"error":{"code":"invalid_request","message":"code: is required"}})",
                 StatusCode::kInvalidArgument, "invalid_request", "code: is required"},
        HttpCase{"unauthenticated", 401,
                 R"({"error":{"code":"unauthenticated","message":"invalid API key"}})",
                 StatusCode::kInvalidArgument, "unauthenticated", "invalid API key"},
        HttpCase{"forbidden", 403, R"({"error":{"code":"forbidden","message":"tier free"}})",
                 StatusCode::kFailedPrecondition, "forbidden", "tier free"},
        HttpCase{"not_found", 404, R"({"error":{"code":"not_found","message":"no job x"}})",
                 StatusCode::kNotFound, "not_found", "no job x"},
        HttpCase{"too_many", 429, R"({"error":{"code":"rate_limited","message":"slow down"}})",
                 StatusCode::kResourceExhausted, "rate_limited", "slow down"},
        HttpCase{"unavailable", 503,
                 R"({"error":{"code":"llm_not_configured","message":"set llm.base_url"}})",
                 StatusCode::kUnavailable, "llm_not_configured", "set llm.base_url"},
        HttpCase{"not_our_json", 502, "<html>Bad Gateway</html>\n", StatusCode::kInternal,
                 "http_error", "HTTP 502: <html>Bad Gateway</html>"},
        HttpCase{"empty_body", 404, "", StatusCode::kNotFound, "http_error", "HTTP 404"},
        HttpCase{"error_without_message", 500, R"({"error":{"code":"boom"}})",
                 StatusCode::kInternal, "boom", "HTTP 500"}),
    [](const ::testing::TestParamInfo<HttpCase>& info) { return info.param.name; });

TEST(ApiClientTest, UnreachableServiceIsUnavailableNamingTheUrl) {
  // Port 1 on loopback: nothing listens there, so the connection is refused.
  ApiClient client("http://127.0.0.1:1/", "");
  EXPECT_EQ(client.base_url(), "http://127.0.0.1:1");
  auto r = client.Call("GET", "/v1/jobs");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(r.status().message(), HasSubstr("cannot reach coderunner at http://127.0.0.1:1"));
  Status s = client.StreamEvents("/v1/jobs/x/events", [](auto&, auto&) { return true; });
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace coderunner::cli
