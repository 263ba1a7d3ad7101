#include "coderunner/engine/execs.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "unit/engine/fake_transport.h"

namespace coderunner::engine {
namespace {

using testutil::FakeTransport;

constexpr std::chrono::milliseconds kTimeout{1234};

class ExecClientTest : public ::testing::Test {
 protected:
  FakeTransport transport_;
  ExecClient client_{transport_, kTimeout};
};

TEST_F(ExecClientTest, CreateRunsAsTheGivenUserWithoutStdinOrTerminal) {
  transport_.Answer("POST", "/containers/c1/exec", 201, R"({"Id":"e1"})");
  auto id = client_.Create("c1", {{"sh", "-c", "id"}, "1234:1234", "/home/user", {"A=B"}});
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, "e1");
  const nlohmann::json sent = nlohmann::json::parse(transport_.last_request().body);
  EXPECT_EQ(sent["User"], "1234:1234");
  EXPECT_EQ(sent["Cmd"], (nlohmann::json{"sh", "-c", "id"}));
  EXPECT_EQ(sent["WorkingDir"], "/home/user");
  EXPECT_EQ(sent["Env"], (nlohmann::json{"A=B"}));
  EXPECT_EQ(sent["AttachStdin"], false);
  EXPECT_EQ(sent["Tty"], false);
  EXPECT_EQ(sent["Privileged"], false);
}

TEST_F(ExecClientTest, RefusalsKeepTheirMeaning) {
  struct Case {
    const char* name;
    long status;
    const char* body;
    StatusCode code;
  };
  const Case cases[] = {
      {"gone", 404, R"({"message":"No such container: c1"})", StatusCode::kNotFound},
      {"not running", 409, R"({"message":"container c1 is not running"})",
       StatusCode::kFailedPrecondition},
      {"no id", 201, R"({})", StatusCode::kInternal},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeTransport t;
    ExecClient client(t, kTimeout);
    t.Answer("POST", "/containers/c1/exec", c.status, c.body);
    EXPECT_EQ(client.Create("c1", {{"true"}, "1:1", "", {}}).status().code(), c.code);
  }
  // Without a user the engine would pick the image's: refused before it.
  EXPECT_EQ(client_.Create("c1", {{"true"}, "", "", {}}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(client_.Create("../x", {{"true"}, "1:1", "", {}}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(transport_.requests().empty());
}

TEST_F(ExecClientTest, StartStreamsTheOutputAndInspectReadsTheEnd) {
  transport_.Answer("POST", "/exec/e1/start", 200, "0123456789");
  transport_.set_stream_chunk_size(4);
  std::string got;
  Status s = client_.Start(
      "e1",
      [&](std::string_view chunk) {
        got.append(chunk);
        return true;
      },
      std::chrono::milliseconds(0));
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(got, "0123456789");
  transport_.Answer("GET", "/exec/e1/json", 200, R"({"Running":false,"ExitCode":3})");
  auto state = client_.Inspect("e1");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_FALSE(state->running);
  EXPECT_EQ(state->exit_code, 3);
  transport_.Answer("POST", "/exec/e2/start", 404, R"({"message":"no such exec"})");
  std::string none;
  EXPECT_EQ(client_
                .Start(
                    "e2",
                    [&](std::string_view chunk) {
                      none.append(chunk);
                      return true;
                    },
                    std::chrono::milliseconds(0))
                .code(),
            StatusCode::kNotFound);
  EXPECT_EQ(none, "");  // An error body never reaches the sink.
}

}  // namespace
}  // namespace coderunner::engine
