// The JSON-RPC side of `coderunner mcp`: what a client's line is, and the
// lines (and diagnostics) an answer from the server becomes.
#include "cli/mcp_messages.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::cli {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

struct ClientLineCase {
  const char* name;
  std::string line;
  const char* kind;     // "request", "notification", "response", or "" (none).
  const char* reply;    // The reply expected ("" for none), compared as JSON.
  const char* message;  // Part of the reply's error message ("" to skip).
};

class ParseClientLineTest : public ::testing::TestWithParam<ClientLineCase> {};

const char* KindName(McpMessageKind kind) {
  switch (kind) {
    case McpMessageKind::kRequest:
      return "request";
    case McpMessageKind::kNotification:
      return "notification";
    case McpMessageKind::kResponse:
      return "response";
  }
  return "?";
}

TEST_P(ParseClientLineTest, ForwardsMessagesAndAnswersTheRest) {
  const ClientLineCase& c = GetParam();
  ClientLine got = ParseClientLine(c.line);
  EXPECT_EQ(got.message ? KindName(got.message->kind) : "", std::string(c.kind));
  if (got.message) {
    EXPECT_EQ(got.message->text, c.line);
  }
  if (std::string(c.reply).empty()) {
    EXPECT_EQ(got.reply, "");
    return;
  }
  json reply = json::parse(got.reply);
  json want = json::parse(c.reply);
  std::string message = reply["error"]["message"];
  reply["error"].erase("message");
  EXPECT_EQ(reply, want) << got.reply;
  EXPECT_THAT(message, HasSubstr(c.message));
  EXPECT_EQ(got.reply.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseClientLineTest,
    ::testing::Values(
        ClientLineCase{"request", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "request", "", ""},
        ClientLineCase{"string_id", R"({"jsonrpc":"2.0","id":"a","method":"tools/list"})",
                       "request", "", ""},
        ClientLineCase{"notification", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                       "notification", "", ""},
        ClientLineCase{"response", R"({"jsonrpc":"2.0","id":7,"result":{}})", "response", "", ""},
        ClientLineCase{"blank", "   ", "", "", ""},
        ClientLineCase{"not_json", "{nope", "",
                       R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700}})", "Parse error"},
        ClientLineCase{"not_utf8", "{\"method\":\"\xff\"}", "",
                       R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700}})", "Parse error"},
        ClientLineCase{"batch", R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", "",
                       R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600}})", "Invalid Request"},
        ClientLineCase{"scalar", "42", "", R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600}})",
                       "Invalid Request"},
        ClientLineCase{"neither", R"({"jsonrpc":"2.0","params":{}})", "",
                       R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600}})", "Invalid Request"},
        ClientLineCase{"method_not_a_string", R"({"jsonrpc":"2.0","id":3,"method":5})", "",
                       R"({"jsonrpc":"2.0","id":3,"error":{"code":-32600}})", "Invalid Request"},
        ClientLineCase{"request_with_null_id", R"({"jsonrpc":"2.0","id":null,"method":"ping"})", "",
                       R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600}})", "Invalid Request"},
        ClientLineCase{"request_with_object_id", R"({"jsonrpc":"2.0","id":{},"method":"ping"})", "",
                       R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600}})",
                       "Invalid Request"}),
    [](const ::testing::TestParamInfo<ClientLineCase>& info) { return info.param.name; });

McpMessage Parsed(const std::string& line) { return *ParseClientLine(line).message; }

const char kRequest[] = R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}})";
const char kNotification[] = R"({"jsonrpc":"2.0","method":"notifications/cancelled"})";

struct AnswerCase {
  const char* name;
  const char* sent;
  int http_status;
  std::string body;
  std::vector<std::string> lines;  // Compared as JSON, each without its error message.
  const char* message;             // Part of the first line's error message, or of the
                                   // diagnostic when no line is expected ("" for none).
};

class OutcomeForAnswerTest : public ::testing::TestWithParam<AnswerCase> {};

TEST_P(OutcomeForAnswerTest, LinesForTheClient) {
  const AnswerCase& c = GetParam();
  RelayOutcome got = OutcomeForAnswer(Parsed(c.sent), c.http_status, c.body);
  ASSERT_EQ(got.lines.size(), c.lines.size()) << got.diagnostic;
  std::string message;
  for (size_t i = 0; i < c.lines.size(); ++i) {
    EXPECT_EQ(got.lines[i].find('\n'), std::string::npos);
    json line = json::parse(got.lines[i]);
    if (line.contains("error") && line["error"].contains("message") && i == 0) {
      message = line["error"]["message"];
      if (!json::parse(c.lines[i])["error"].contains("message")) line["error"].erase("message");
    }
    EXPECT_EQ(line, json::parse(c.lines[i])) << got.lines[i];
  }
  if (c.lines.empty()) {
    EXPECT_THAT(got.diagnostic, HasSubstr(c.message));
    if (std::string(c.message).empty()) {
      EXPECT_EQ(got.diagnostic, "");
    }
  } else {
    EXPECT_EQ(got.diagnostic, "");
    EXPECT_THAT(message, HasSubstr(c.message));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, OutcomeForAnswerTest,
    ::testing::Values(
        AnswerCase{"json_result",
                   kRequest,
                   200,
                   "{\n  \"jsonrpc\": \"2.0\", \"id\": 5, \"result\": {\"a\": [1, 2]}\n}\n",
                   {R"({"jsonrpc":"2.0","id":5,"result":{"a":[1,2]}})"},
                   ""},
        AnswerCase{"json_batch",
                   kRequest,
                   200,
                   R"([{"jsonrpc":"2.0","method":"n"},7,{"jsonrpc":"2.0","id":5,"result":{}}])",
                   {R"({"jsonrpc":"2.0","method":"n"})", R"({"jsonrpc":"2.0","id":5,"result":{}})"},
                   ""},
        AnswerCase{"accepted_notification", kNotification, 202, "", {}, ""},
        AnswerCase{"accepted_request",
                   kRequest,
                   202,
                   "",
                   {R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000}})"},
                   "HTTP 202 without a response"},
        AnswerCase{"not_json",
                   kRequest,
                   200,
                   "<html></html>",
                   {R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000}})"},
                   "no JSON-RPC message"},
        AnswerCase{
            "rest_error",
            kRequest,
            429,
            R"({"error":{"code":"mcp_sessions_exhausted","message":"16 sessions open"}})",
            {R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"HTTP 429 (mcp_sessions_exhausted): 16 sessions open","data":{"http_status":429,"code":"mcp_sessions_exhausted"}}})"},
            ""},
        AnswerCase{
            "unauthenticated",
            kRequest,
            401,
            R"({"error":{"code":"unauthenticated","message":"invalid API key"}})",
            {R"({"jsonrpc":"2.0","id":5,"error":{"code":-32001,"data":{"http_status":401,"code":"unauthenticated"}}})"},
            "HTTP 401 (unauthenticated): invalid API key"},
        AnswerCase{
            "forbidden",
            kRequest,
            403,
            R"({"error":{"code":"mcp_origin_refused","message":"host"}})",
            {R"({"jsonrpc":"2.0","id":5,"error":{"code":-32001,"data":{"http_status":403,"code":"mcp_origin_refused"}}})"},
            "HTTP 403"},
        AnswerCase{"jsonrpc_error_for_the_same_id_is_relayed",
                   kRequest,
                   400,
                   R"({"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"bad params"}})",
                   {R"({"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"bad params"}})"},
                   "bad params"},
        AnswerCase{
            "jsonrpc_error_without_id",
            kRequest,
            400,
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}})",
            {R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000,"data":{"http_status":400}}})"},
            "HTTP 400: Bad Request: No valid session ID provided"},
        AnswerCase{
            "plain_text_error",
            kRequest,
            502,
            "Bad Gateway\r\n",
            {R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"HTTP 502: Bad Gateway","data":{"http_status":502}}})"},
            ""},
        AnswerCase{"long_body_is_cut",
                   kRequest,
                   500,
                   std::string(1000, 'x'),
                   {R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"HTTP 500: )" +
                    std::string(200, 'x') + R"(","data":{"http_status":500}}})"},
                   ""},
        AnswerCase{"failed_notification",
                   kNotification,
                   404,
                   R"({"error":{"code":"not_found","message":"no such session"}})",
                   {},
                   "notifications/cancelled: HTTP 404 (not_found): no such session"},
        AnswerCase{"failed_response",
                   R"({"jsonrpc":"2.0","id":"s1","result":{}})",
                   500,
                   "",
                   {},
                   "response \"s1\": HTTP 500"}),
    [](const ::testing::TestParamInfo<AnswerCase>& info) { return info.param.name; });

TEST(OutcomeForFailureTest, AnErrorForARequestADiagnosticElse) {
  RelayOutcome request = OutcomeForFailure(Parsed(kRequest), "cannot reach http://h/mcp");
  ASSERT_EQ(request.lines.size(), 1u);
  EXPECT_EQ(json::parse(request.lines[0]),
            json::parse(R"({"jsonrpc":"2.0","id":5,"error":{"code":-32000,)"
                        R"("message":"cannot reach http://h/mcp"}})"));
  RelayOutcome notification = OutcomeForFailure(Parsed(kNotification), "cannot reach");
  EXPECT_TRUE(notification.lines.empty());
  EXPECT_EQ(notification.diagnostic, "coderunner mcp: notifications/cancelled: cannot reach");
}

TEST(OverlongLineReplyTest, ParseErrorWithNullId) {
  json reply = json::parse(OverlongLineReply(16));
  EXPECT_EQ(reply["id"], nullptr);
  EXPECT_EQ(reply["error"]["code"], kJsonRpcParseError);
  EXPECT_THAT(reply["error"]["message"].get<std::string>(), HasSubstr("longer than 16 bytes"));
}

struct ResponseToCase {
  const char* name;
  const char* message;
  json id;
  bool want;
};

class IsResponseToTest : public ::testing::TestWithParam<ResponseToCase> {};

TEST_P(IsResponseToTest, OnlyAResultOrErrorWithTheSameId) {
  EXPECT_EQ(IsResponseTo(json::parse(GetParam().message), GetParam().id), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, IsResponseToTest,
    ::testing::Values(ResponseToCase{"result", R"({"id":5,"result":{}})", 5, true},
                      ResponseToCase{"error", R"({"id":"a","error":{}})", "a", true},
                      ResponseToCase{"other_id", R"({"id":6,"result":{}})", 5, false},
                      ResponseToCase{"string_is_not_number", R"({"id":"5","result":{}})", 5, false},
                      ResponseToCase{"progress_notification",
                                     R"({"method":"notifications/progress"})", 5, false},
                      ResponseToCase{"server_request_same_id",
                                     R"({"id":5,"method":"ping","result":{}})", 5, false}),
    [](const ::testing::TestParamInfo<ResponseToCase>& info) { return info.param.name; });

TEST(NegotiatedProtocolVersionTest, FromTheInitializeResult) {
  EXPECT_EQ(NegotiatedProtocolVersion(json::parse(
                R"({"id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}})")),
            "2025-06-18");
  EXPECT_EQ(NegotiatedProtocolVersion(json::parse(R"({"id":0,"result":{}})")), "");
  EXPECT_EQ(NegotiatedProtocolVersion(json::parse(R"({"id":0,"error":{"code":1}})")), "");
  EXPECT_EQ(NegotiatedProtocolVersion(json::parse(R"({"result":{"protocolVersion":3}})")), "");
}

TEST(CancelledRequestIdTest, OnlyFromACancelledNotification) {
  auto id = CancelledRequestId(Parsed(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r9"}})"));
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(*id, "r9");
  EXPECT_FALSE(CancelledRequestId(Parsed(kNotification)).has_value());  // No params.
  EXPECT_FALSE(CancelledRequestId(Parsed(R"({"jsonrpc":"2.0","id":1,"method":"notifications/)"
                                         R"(cancelled","params":{"requestId":1}})"))
                   .has_value());  // A request, not a notification.
}

}  // namespace
}  // namespace coderunner::cli
