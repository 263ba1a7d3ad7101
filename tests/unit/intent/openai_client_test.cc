#include "coderunner/intent/openai_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/utf8.h"
#include "integration/fake_llm.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;
using testing::FakeLlm;

class OpenAiClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    llm_ = std::make_unique<FakeLlm>();
    ASSERT_TRUE(llm_->started());
  }

  config::LlmConfig Config(int64_t timeout_ms = 5000) const {
    config::LlmConfig c;
    c.base_url = llm_->base_url() + "/";  // A trailing slash is tolerated.
    c.model = "m1";
    c.timeout_ms = timeout_ms;
    c.max_tokens = 300;
    return c;
  }

  static ChatRequest Hello(int max_tokens = 0) {
    ChatRequest r;
    r.messages = {{"system", "be brief"}, {"user", "hello there"}};
    r.max_tokens = max_tokens;
    return r;
  }

  std::unique_ptr<FakeLlm> llm_;
};

struct ReplyCase {
  const char* name;
  json reply;
  std::string reason;             // "" = success.
  std::string mention;            // In the content (success) or the error message.
  int64_t prompt_tokens = 0;      // Expected on success.
  int64_t completion_tokens = 0;  // Expected on success.
};

// A chat.completion as a server that reports no usage at all sends it.
std::string WithoutUsage(const std::string& content) {
  return json{{"choices", {{{"message", {{"role", "assistant"}, {"content", content}}}}}}}.dump();
}

TEST_F(OpenAiClientTest, MapsEveryKindOfAnswer) {
  // Hello() is 8 + 11 prompt bytes: estimated (19 + 3) / 4 = 5 tokens.
  const ReplyCase cases[] = {
      {"content with usage",
       {{"content", "hi!"}, {"usage", {{"prompt_tokens", 11}, {"completion_tokens", 2}}}},
       "",
       "hi!",
       11,
       2},
      {"usage absent is estimated from the bytes",
       {{"raw", WithoutUsage("twelve bytes")}},
       "",
       "twelve bytes",
       5,
       3},
      {"empty content is an answer", {{"raw", WithoutUsage("")}}, "", "", 5, 0},
      {"http 500 with an OpenAI error",
       {{"status", 500}, {"body", R"({"error":{"message":"model overloaded"}})"}},
       "llm_http_error",
       "HTTP 500: model overloaded"},
      {"http 401 text",
       {{"status", 401}, {"body", "no key"}},
       "llm_http_error",
       "HTTP 401: no key"},
      {"http error text is cut at 200 bytes on a character boundary",
       {{"status", 502}, {"body", std::string(199, 'a') + "\u00e9tail"}},
       "llm_http_error",
       std::string(199, 'a')},
      {"garbage", {{"raw", "<html>"}}, "llm_bad_reply", "not a chat completion"},
      {"no choices key", {{"raw", R"({"id":"x"})"}}, "llm_bad_reply", ""},
      {"empty choices", {{"raw", R"({"choices":[]})"}}, "llm_bad_reply", ""},
      {"null content",
       {{"raw", R"({"choices":[{"message":{"content":null}}]})"}},
       "llm_bad_reply",
       ""},
      {"content not a string",
       {{"raw", R"({"choices":[{"message":{"content":5}}]})"}},
       "llm_bad_reply",
       ""},
      // The model's bytes are parsed bounded: a deep answer is refused, not
      // built (300,000 levels would overflow any copy or dump of it).
      {"deep answer",
       {{"raw", R"({"choices":[{"message":{"content":"hi"}}],"x":)" + std::string(300000, '[') +
                    std::string(300000, ']') + "}"}},
       "llm_bad_reply",
       "not a chat completion"},
      {"deep error body",
       {{"status", 500}, {"body", R"({"error":)" + std::string(300000, '[') + "}"}},
       "llm_http_error",
       "HTTP 500: {\"error\":[[["},
      {"answer over 4 MiB",
       {{"content", std::string((4 << 20) + 1, 'x')}},
       "llm_bad_reply",
       "larger than 4 MiB"},
  };
  OpenAiClient client(Config(), "");
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    llm_->Script(json::array({c.reply}));
    auto r = client.Complete(Hello(), nullptr);
    if (c.reason.empty()) {
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->content, c.mention);
      EXPECT_EQ(r->prompt_tokens, c.prompt_tokens);
      EXPECT_EQ(r->completion_tokens, c.completion_tokens);
    } else {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().reason(), c.reason) << r.status().ToString();
      EXPECT_NE(r.status().message().find(c.mention), std::string::npos)
          << r.status().ToString().substr(0, 300);
      EXPECT_TRUE(IsValidUtf8(r.status().message()));
      EXPECT_LT(r.status().message().size(), 1000u) << "errors quote only an excerpt";
    }
  }
}

TEST_F(OpenAiClientTest, SendsModelMessagesBoundedMaxTokensAndTheKey) {
  OpenAiClient client(Config(), "sk-test-123");
  llm_->Script({{{"content", "ok"}, {"usage", json::object()}}});
  auto r = client.Complete(Hello(/*max_tokens=*/1000), nullptr);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // No usage reported: estimated from the bytes.
  EXPECT_EQ(r->prompt_tokens, (8 + 11 + 3) / 4);
  EXPECT_EQ(r->completion_tokens, 1);
  json sent = llm_->Requests()[0];
  EXPECT_EQ(sent["authorization"], "Bearer sk-test-123");
  EXPECT_EQ(sent["body"]["model"], "m1");
  EXPECT_EQ(sent["body"]["max_tokens"], 300) << "the configured maximum bounds a request";
  EXPECT_EQ(sent["body"]["stream"], false);
  ASSERT_EQ(sent["body"]["messages"].size(), 2u);
  EXPECT_EQ(sent["body"]["messages"][1]["content"], "hello there");
}

TEST_F(OpenAiClientTest, ASlowModelTimesOutOnTime) {
  OpenAiClient client(Config(/*timeout_ms=*/300), "");
  // It would answer after ten minutes: only the timeout ends the call.
  llm_->Script({{{"content", "late"}, {"delay_ms", 600000}}});
  auto r = client.Complete(Hello(), nullptr);
  EXPECT_EQ(r.status().reason(), "llm_timeout");
}

TEST_F(OpenAiClientTest, CancelAbortsAWaitingCall) {
  OpenAiClient client(Config(), "");
  // It would answer after ten minutes (past the client's timeout, too):
  // only the cancel ends the call.
  llm_->Script({{{"content", "late"}, {"delay_ms", 600000}}});
  isolation::CancelToken token;
  std::thread canceller([&] {
    // Once the request is with the model.
    for (int i = 0; i < 6000 && llm_->Requests().empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    token.Cancel();
  });
  auto r = client.Complete(Hello(), &token);
  canceller.join();
  EXPECT_EQ(r.status().reason(), "cancelled");
}

TEST_F(OpenAiClientTest, NobodyListeningIsUnreachable) {
  config::LlmConfig c = Config();
  c.base_url = "http://127.0.0.1:1/v1";
  OpenAiClient client(c, "");
  EXPECT_EQ(client.Complete(Hello(), nullptr).status().reason(), "llm_unreachable");
}

TEST_F(OpenAiClientTest, AConnectThatNeverCompletesIsUnreachableNotATimeout) {
  // A listener that never accepts, its one-slot queue filled: the kernel
  // drops every further SYN, so a connect hangs like one to a firewalled host.
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(listener, 0), 0);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::vector<int> fillers;
  for (int i = 0; i < 4; ++i) {
    int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    (void)connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    fillers.push_back(s);
  }
  config::LlmConfig c = Config(/*timeout_ms=*/5000);
  c.connect_timeout_ms = 300;
  c.base_url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/v1";
  OpenAiClient client(c, "");
  // Unreachable, not llm_timeout: the connect timeout (300 ms), not the
  // call's (5 s), ended it.
  auto r = client.Complete(Hello(), nullptr);
  for (int s : fillers) close(s);
  close(listener);
  EXPECT_EQ(r.status().reason(), "llm_unreachable") << r.status().ToString();
  EXPECT_NE(r.status().message().find("300 ms"), std::string::npos) << r.status().ToString();
}

TEST_F(OpenAiClientTest, AKeyQuotedBackByTheServerIsRedacted) {
  const json replies[] = {
      {{"status", 401},
       {"body", R"({"error":{"message":"Incorrect API key provided: sk-secret-777."}})"}},
      {{"status", 403}, {"body", "denied for sk-secret-777 and sk-secret-777"}},
      {{"raw", "not json, key sk-secret-777"}},
  };
  OpenAiClient client(Config(), "sk-secret-777");
  for (const auto& reply : replies) {
    SCOPED_TRACE(reply.dump());
    llm_->Script(json::array({reply}));
    auto r = client.Complete(Hello(), nullptr);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message().find("sk-secret"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("[redacted]"), std::string::npos) << r.status().message();
  }
}

TEST_F(OpenAiClientTest, FromConfigReadsTheKeyFromTheNamedVariable) {
  config::LlmConfig c = Config();
  c.api_key_env = "CODERUNNER_TEST_UNSET_KEY_VAR";
  unsetenv(c.api_key_env.c_str());
  auto missing = OpenAiClient::FromConfig(c);
  EXPECT_EQ(missing.status().reason(), "llm_key_missing");
  EXPECT_EQ(missing.status().message().find("sk-"), std::string::npos);
  setenv(c.api_key_env.c_str(), "sk-from-env", 1);
  auto client = OpenAiClient::FromConfig(c);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  llm_->Script({{{"content", "ok"}}});
  ASSERT_TRUE((*client)->Complete(Hello(), nullptr).ok());
  EXPECT_EQ(llm_->Requests()[0]["authorization"], "Bearer sk-from-env");
  unsetenv(c.api_key_env.c_str());
  c.model = "";
  EXPECT_EQ(OpenAiClient::FromConfig(c).status().reason(), "invalid_config");
}

}  // namespace
}  // namespace coderunner::intent
