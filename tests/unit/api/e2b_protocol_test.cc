// The Connect framing and the protobuf-JSON the E2B SDKs exchange
// (src/api/e2b): what the SDKs accept, byte for byte, and what they may
// send refused by name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "api/e2b/connect_envelope.h"
#include "api/e2b/e2b_json.h"
#include "api/e2b/e2b_routes.h"
#include "coderunner/auth/authenticator.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;
using sandboxes::ProcessEvent;

TEST(ConnectEnvelopeTest, FramesAndReadsOneMessage) {
  EXPECT_EQ(Envelope(0, "{}"), std::string("\0\0\0\0\x02{}", 7));
  EXPECT_EQ(Envelope(kEnvelopeEndStream, ""), std::string("\x02\0\0\0\0", 5));
  struct Case {
    const char* name;
    std::string body;
    bool ok;
    const char* message;
  };
  const std::string big(300, 'x');
  const Case cases[] = {
      {"one message", Envelope(0, R"({"a":1})"), true, R"({"a":1})"},
      {"a long one", Envelope(0, big), true, big.c_str()},
      {"empty message", Envelope(0, ""), true, ""},
      {"compressed", Envelope(kEnvelopeCompressed, "{}"), false, ""},
      {"short header", std::string("\0\0\0", 3), false, ""},
      {"length past the body", std::string("\0\0\0\0\x09{}", 7), false, ""},
      {"two messages", Envelope(0, "{}") + Envelope(0, "{}"), false, ""},
      {"plain JSON", "{\"a\":1}", false, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto m = SingleEnvelopedMessage(c.body);
    ASSERT_EQ(m.ok(), c.ok) << m.status().ToString();
    if (c.ok) {
      EXPECT_EQ(*m, c.message);
    }
  }
}

TEST(ConnectEnvelopeTest, EveryStatusHasTheCodeAndHttpStatusConnectNames) {
  struct Case {
    Status status;
    const char* code;
    int http;
  };
  const Case cases[] = {
      {InvalidArgumentError("x"), "invalid_argument", 400},
      {InvalidArgumentError("x", auth::kReasonUnauthenticated), "unauthenticated", 401},
      {NotFoundError("x"), "not_found", 404},
      {AlreadyExistsError("x"), "already_exists", 409},
      {FailedPreconditionError("x"), "failed_precondition", 400},
      {FailedPreconditionError("x", kReasonE2bUnsupported), "unimplemented", 501},
      {ResourceExhaustedError("x"), "resource_exhausted", 429},
      {UnavailableError("x"), "unavailable", 503},
      {DeadlineExceededError("x"), "deadline_exceeded", 504},
      {InternalError("x"), "internal", 500},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.code);
    EXPECT_EQ(ConnectCode(c.status), c.code);
    EXPECT_EQ(ConnectHttpStatus(ConnectCode(c.status)), c.http);
    EXPECT_EQ(ConnectErrorJson(c.status),
              (json{{"code", c.code}, {"message", "x"}, {"reason", c.status.reason()}}));
  }
}

TEST(E2bJsonTest, ProcessEventsAsTheSdkReadsThem) {
  struct Case {
    ProcessEvent event;
    json want;
  };
  const Case cases[] = {
      {ProcessEvent::Of(ProcessEvent::Kind::kStart, 42), {{"event", {{"start", {{"pid", 42}}}}}}},
      {ProcessEvent::Of(ProcessEvent::Kind::kStdout, 42, "hi\n"),
       {{"event", {{"data", {{"stdout", "aGkK"}}}}}}},
      {ProcessEvent::Of(ProcessEvent::Kind::kStderr, 42, std::string("\0\xff", 2)),
       {{"event", {{"data", {{"stderr", "AP8="}}}}}}},
      {ProcessEvent::Of(ProcessEvent::Kind::kKeepalive, 42),
       {{"event", {{"keepalive", json::object()}}}}},
      {ProcessEvent::End(42, 0),
       {{"event", {{"end", {{"exitCode", 0}, {"exited", true}, {"status", "exit status 0"}}}}}}},
      {ProcessEvent::End(42, 3),
       {{"event",
         {{"end",
           {{"exitCode", 3},
            {"exited", true},
            {"status", "exit status 3"},
            {"error", "exit status 3"}}}}}}},
      {ProcessEvent::End(42, -1, "engine gone"),
       {{"event",
         {{"end",
           {{"exitCode", -1},
            {"exited", false},
            {"status", "engine gone"},
            {"error", "engine gone"}}}}}}},
  };
  for (const Case& c : cases) EXPECT_EQ(ProcessEventJson(c.event), c.want) << c.want.dump();
}

TEST(E2bJsonTest, StartRequestsAndSelectors) {
  struct Case {
    const char* request;
    bool ok;
    const char* cmd;
    bool stdin;
  };
  const Case cases[] = {
      {R"({"process":{"cmd":"/bin/bash","args":["-l","-c","echo hi"]},"stdin":false})", true,
       "/bin/bash", false},
      {R"({"process":{"cmd":"cat","envs":{"A":"B"},"cwd":"/tmp"},"stdin":true,"tag":"t"})", true,
       "cat", true},
      {R"({"process":{"cmd":""}})", false, "", false},
      {R"({"process":{"args":["x"]}})", false, "", false},
      {R"({"process":{"cmd":"sh","args":"x"}})", false, "", false},
      {R"({"process":{"cmd":"bash"},"pty":{"size":{"cols":80,"rows":24}}})", false, "", false},
      {R"({})", false, "", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.request);
    auto config = ProcessConfigFromJson(json::parse(c.request));
    ASSERT_EQ(config.ok(), c.ok) << config.status().ToString();
    if (!c.ok) continue;
    EXPECT_EQ(config->cmd, c.cmd);
    EXPECT_EQ(config->stdin, c.stdin);
  }
  EXPECT_EQ(SelectorFromJson(json::parse(R"({"pid":7})"))->pid, 7);
  EXPECT_EQ(ConnectTimeoutOf("")->count(), 0);
  EXPECT_EQ(ConnectTimeoutOf("60000")->count(), 60000);
  for (const char* bad : {"-1", "1.5", "12345678901", " 5", "1e3"}) {
    EXPECT_FALSE(ConnectTimeoutOf(bad).ok()) << bad;
  }
  EXPECT_EQ(SelectorFromJson(json::parse(R"({"pid":"7"})"))->pid, 7);
  EXPECT_EQ(SelectorFromJson(json::parse(R"({"tag":"t"})"))->tag, "t");
  for (const char* bad : {R"({"pid":0})", R"({"pid":-3})", R"({})", R"([])", R"({"tag":1})"}) {
    EXPECT_FALSE(SelectorFromJson(json::parse(bad)).ok()) << bad;
  }
}

}  // namespace
}  // namespace coderunner::api::e2b
