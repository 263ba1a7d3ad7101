#include "engine/engine_error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::engine {
namespace {

using ::testing::HasSubstr;

TEST(EngineErrorTest, StatusMappingTable) {
  struct Case {
    long http;
    StatusCode conflict;
    StatusCode want;
    const char* reason;
  };
  const StatusCode kFp = StatusCode::kFailedPrecondition;
  const std::vector<Case> cases = {
      {400, kFp, StatusCode::kInvalidArgument, "engine_invalid_argument"},
      {404, kFp, StatusCode::kNotFound, "engine_not_found"},
      {409, kFp, StatusCode::kFailedPrecondition, "engine_failed_precondition"},
      {409, StatusCode::kAlreadyExists, StatusCode::kAlreadyExists, "engine_already_exists"},
      {500, kFp, StatusCode::kInternal, "engine_internal"},
      {502, kFp, StatusCode::kUnavailable, "engine_unavailable"},
      {503, kFp, StatusCode::kUnavailable, "engine_unavailable"},
      {504, kFp, StatusCode::kUnavailable, "engine_unavailable"},
      {401, kFp, StatusCode::kInternal, "engine_internal"},
      {304, kFp, StatusCode::kInternal, "engine_internal"},
      {0, kFp, StatusCode::kInternal, "engine_internal"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.http);
    Status s = StatusFromEngine({c.http, R"({"message":"boom"})"}, "do thing", c.conflict);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), c.want);
    EXPECT_EQ(s.reason(), c.reason);
    EXPECT_EQ(s.message(), "do thing: boom (HTTP " + std::to_string(c.http) + ")");
  }
}

TEST(EngineErrorTest, Every2xxIsOk) {
  for (long http : {200L, 201L, 204L, 299L}) {
    SCOPED_TRACE(http);
    EXPECT_TRUE(StatusFromEngine({http, "not even json"}, "op").ok());
  }
}

TEST(EngineErrorTest, EngineMessageTable) {
  struct Case {
    const char* name;
    std::string body;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"docker", R"({"message":"No such container: x"})", "No such container: x"},
      {"podman",
       R"({"cause":"no such container","message":"no container with name x","response":404})",
       "no container with name x"},
      {"message not a string", R"({"message":42})", R"({"message":42})"},
      {"json without message", R"({"error":"e"})", R"({"error":"e"})"},
      {"json array", R"(["message"])", R"(["message"])"},
      {"plain text with newline", "page not found\r\n", "page not found"},
      {"garbage bytes", "\x01\x02garbage{", "\x01\x02garbage{"},
      {"empty", "", "(empty body)"},
      {"only newlines", "\n\n", "(empty body)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(EngineMessage(c.body), c.want);
  }
}

TEST(EngineErrorTest, EngineMessageTruncatesRawBodyTo512Bytes) {
  std::string body(2000, 'x');
  EXPECT_EQ(EngineMessage(body), std::string(512, 'x'));
}

TEST(EngineErrorTest, RecordedErrorBodiesYieldTheEngineMessage) {
  struct Case {
    const char* engine;
    const char* recording;
    const char* fragment;
  };
  const std::vector<Case> cases = {
      {"docker", "container_remove_missing", "No such container: coderunner-rec-missing"},
      {"podman", "container_remove_missing", "no container with name or ID"},
      {"docker", "image_inspect_missing", "No such image: coderunner/missing:0"},
      {"podman", "image_inspect_missing", "failed to find image coderunner/missing:0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.engine) + "/" + c.recording);
    auto r = testutil::LoadRecording(c.engine, c.recording);
    std::string msg = EngineMessage(r.response.body);
    EXPECT_THAT(msg, HasSubstr(c.fragment));
    // The structured body itself never leaks into the message.
    EXPECT_THAT(msg, ::testing::Not(HasSubstr("{")));
    Status s = StatusFromEngine(r.response, "op");
    EXPECT_EQ(s.code(), StatusCode::kNotFound);
    EXPECT_THAT(s.message(), HasSubstr(c.fragment));
  }
}

}  // namespace
}  // namespace coderunner::engine
