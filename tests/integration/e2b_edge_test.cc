// The /e2b routes' edges over raw HTTP (E2bEdgeTest): what the SDKs never
// send. A call into a sandbox without its token is refused before its body
// is read and starts nothing; hostile messages with the token are Connect
// errors, and the sandbox and the service go on. The real SDK's own paths
// are E2bSdkTest.
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr char kKey[] = "e2b_edge_0123456789abcdef0123";

// One envelope of the Connect protocol around `message`.
std::string Envelope(const std::string& message) {
  std::string out(1, '\0');
  const uint32_t n = static_cast<uint32_t>(message.size());
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((n >> shift) & 0xff));
  return out + message;
}

class E2bEdgeTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override { return ApiKeysYaml({{"acme", "pro", kKey}}); }

  void SetUp() override {
    EngineTest::SetUp();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(60, 0);
    auto created = client_->Post("/e2b/v2/sandboxes", {{"X-API-Key", kKey}},
                                 R"({"templateID":"base","timeout":120})", "application/json");
    ASSERT_TRUE(created) << "no answer";
    ASSERT_EQ(created->status, 201) << created->body;
    json j = json::parse(created->body);
    id_ = j["sandboxID"];
    token_ = j["envdAccessToken"];
  }

  void TearDown() override {
    if (client_ && !id_.empty()) client_->Delete("/e2b/sandboxes/" + id_, {{"X-API-Key", kKey}});
    std::error_code ec;
    if (server_ && server_->started()) {
      std::filesystem::remove(server_->workspace_dir() + "/sandboxes", ec);
    }
    EngineTest::TearDown();
  }

  httplib::Result Envd(const std::string& path, const std::string& body, const std::string& token,
                       const std::string& type = "application/json") {
    return client_->Post(path, {{"E2b-Sandbox-Id", id_}, {"X-Access-Token", token}}, body, type);
  }

  // How many processes the sandbox lists.
  size_t Processes() {
    auto r = Envd("/e2b/process.Process/List", "{}", token_);
    EXPECT_TRUE(r && r->status == 200) << (r ? r->body : "no answer");
    return r ? json::parse(r->body)["processes"].size() : 0;
  }

  std::unique_ptr<httplib::Client> client_;
  std::string id_, token_;
};

TEST_F(E2bEdgeTest, WithoutItsTokenNothingReachesTheSandbox) {
  for (const std::string& token : {std::string(), std::string("tok-wrong"), token_ + "x"}) {
    SCOPED_TRACE("token '" + token + "'");
    auto start = Envd("/e2b/process.Process/Start",
                      Envelope(R"({"process":{"cmd":"/bin/sh","args":["-c","sleep 30"]}})"), token,
                      "application/connect+json");
    ASSERT_TRUE(start);
    EXPECT_EQ(start->status, 401) << start->body;
    EXPECT_EQ(json::parse(start->body)["code"], "unauthenticated");
    auto read = client_->Get("/e2b/files?path=/etc/hostname",
                             {{"E2b-Sandbox-Id", id_}, {"X-Access-Token", token}});
    ASSERT_TRUE(read);
    EXPECT_EQ(read->status, 401) << read->body;
  }
  EXPECT_EQ(Processes(), 0u);
  // Another sandbox's token does not open this one.
  auto other =
      client_->Post("/e2b/v2/sandboxes", {{"X-API-Key", kKey}}, R"({})", "application/json");
  ASSERT_TRUE(other && other->status == 201) << (other ? other->body : "no answer");
  json o = json::parse(other->body);
  auto crossed = Envd("/e2b/process.Process/List", "{}", o["envdAccessToken"]);
  ASSERT_TRUE(crossed);
  EXPECT_EQ(crossed->status, 401) << crossed->body;
  client_->Delete("/e2b/sandboxes/" + o["sandboxID"].get<std::string>(), {{"X-API-Key", kKey}});
}

TEST_F(E2bEdgeTest, HostileMessagesAreConnectErrorsAndTheSandboxGoesOn) {
  struct Case {
    const char* path;
    std::string body;
    const char* type;
    int status;
  };
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const Case cases[] = {
      {"/e2b/process.Process/SendInput", "[1,2]", "application/json", 400},
      {"/e2b/process.Process/SendInput", R"({"process":{"pid":"x"},"input":{"stdin":7}})",
       "application/json", 400},
      {"/e2b/process.Process/SendSignal", R"({"process":{"pid":99999},"signal":"SIGNAL_SIGHUP"})",
       "application/json", 400},
      {"/e2b/process.Process/CloseStdin", R"({"process":{"pid":99999}})", "application/json", 404},
      {"/e2b/filesystem.Filesystem/ListDir", R"({"path":"/","depth":"deep"})", "application/json",
       400},
      {"/e2b/filesystem.Filesystem/ListDir", R"({"path":"/","depth":100000})", "application/json",
       400},
      {"/e2b/filesystem.Filesystem/Stat", R"({"path":7})", "application/json", 400},
      {"/e2b/filesystem.Filesystem/Stat", deep, "application/json", 400},
      {"/e2b/filesystem.Filesystem/Stat", "not json", "application/json", 400},
      {"/e2b/filesystem.Filesystem/Move", R"({"source":"/nope"})", "application/json", 400},
      // A stream's request must be one whole envelope.
      {"/e2b/process.Process/Start", R"({"process":{"cmd":"sh"}})", "application/connect+json",
       200},
      {"/e2b/process.Process/Start", Envelope("[]"), "application/connect+json", 200},
      {"/e2b/process.Process/Start", Envelope(R"({"process":{"cmd":"sh"}})").substr(0, 9),
       "application/connect+json", 200},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.path) + " " + c.body.substr(0, 60));
    auto r = Envd(c.path, c.body, token_, c.type);
    ASSERT_TRUE(r) << "no answer: the service died\n" << server_->log().substr(0, 4000);
    EXPECT_EQ(r->status, c.status) << r->body.substr(0, 300);
    EXPECT_LT(r->body.size(), 4096u) << "the answer echoes the body";
    if (c.status == 200) {
      // A stream refused before its first message: only an error end.
      ASSERT_GE(r->body.size(), 5u);
      EXPECT_EQ(static_cast<uint8_t>(r->body[0]), 0x02) << "an end-of-stream envelope";
      EXPECT_NE(r->body.find("invalid_argument"), std::string::npos) << r->body;
    }
  }
  EXPECT_EQ(Processes(), 0u);
  auto still = Envd("/e2b/filesystem.Filesystem/Stat", R"({"path":"/home/user"})", token_);
  ASSERT_TRUE(still);
  EXPECT_EQ(still->status, 200) << still->body;
  EXPECT_EQ(json::parse(still->body)["entry"]["type"], "FILE_TYPE_DIRECTORY");
}

}  // namespace
}  // namespace coderunner::testing
