// State that lives on one node, reached through another: two nodes on one
// real PostgreSQL and the engine under test. A sandbox on node X is used
// through node Y (the same interpreter state), a job's artifact kept by X
// is downloaded through Y byte for byte; once X has crashed (kill -9: its
// node row still there, its port refusing), Y answers 410 state_lost for
// the sandbox and 410 artifacts_gone for the artifact. (A node that left
// cleanly, its row removed, is the unit tests' "owner not registered".)
// The E2B SDK's calls, streams included, reach a sandbox through the node
// that does not hold it, and find it gone with its node.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "pg_support.h"
#include "run_command.h"
#include "server_process.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

// A port nothing listens on now (bound to 0, read, closed): each node
// listens on a fixed port so that the URL it advertises is reachable.
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

constexpr char kAcmeKey[] = "e2b_0123456789abcdef0123456789abcdef";
constexpr char kGlobexKey[] = "e2b_fedcba9876543210fedcba9876543210";

class PgForwardTest : public PgClusterTest {
 protected:
  std::unique_ptr<ServerProcess> Node(const std::string& extra = "") {
    auto node = std::make_unique<ServerProcess>(
        StoreYaml(conninfo_) + "server: {listen: 127.0.0.1:" + std::to_string(FreePort()) + "}\n" +
        extra);
    EXPECT_TRUE(node->started()) << node->log();
    return node;
  }
};

TEST_F(PgForwardTest, SandboxAndArtifactAreServedThroughAnotherNodeThenGoneWithTheirNode) {
  auto a = Node();
  auto b = Node();
  ASSERT_TRUE(a->started() && b->started());
  // A job that leaves an artifact; whichever node claims it keeps the file.
  std::string job = Submit(*a, "open('/output/report.bin','wb').write(bytes(range(256))*8)");
  ASSERT_FALSE(job.empty());
  json done = WaitTerminal(*a, job);
  ASSERT_EQ(done["status"], "succeeded") << done.dump();
  Rows owner = Query(conninfo_, "SELECT owner FROM jobs WHERE id = '" + job + "'");
  ASSERT_EQ(owner.size(), 1u);
  ServerProcess& x = owner[0][0] == a->instance() ? *a : *b;  // Holds the state.
  ServerProcess& y = &x == a.get() ? *b : *a;                 // Only forwards.

  HttpAnswer created = x.Post("/v1/sandboxes", json{{"language", "python"}}.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string sbx = created.json["id"];
  const std::string exec = "/v1/sandboxes/" + sbx + "/execute";
  HttpAnswer set = y.Post(exec, json{{"code", "x = 41"}}.dump());
  EXPECT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(set.headers["x-coderunner-node"], x.instance());
  HttpAnswer read = y.Post(exec, json{{"code", "print(x + 1)"}}.dump());
  EXPECT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.json["stdout"], "42\n") << read.body;
  // A file of the sandbox through Y: X's download headers come with it.
  const std::string files = "/v1/sandboxes/" + sbx + "/files/";
  HttpAnswer wrote =
      x.Post(exec, json{{"code", "open('/output/p.html','w').write('<b>1</b>')"}}.dump());
  ASSERT_EQ(wrote.status, 200) << wrote.body;
  HttpAnswer page = y.Get(files + "p.html");
  EXPECT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.body, "<b>1</b>");
  EXPECT_EQ(page.headers["content-security-policy"], "default-src 'none'; sandbox");
  EXPECT_EQ(page.headers["content-disposition"],
            x.Get(files + "p.html").headers["content-disposition"]);
  // Dot segments in the file path reach nothing else on X: Y answers as X does.
  for (const std::string steer :
       {"../../../../metrics", "%2e%2e/%2e%2e/%2e%2e/%2e%2e/metrics", "../../../../openapi.json"}) {
    HttpAnswer steered = y.Get(files + steer);
    EXPECT_EQ(steered.status, 400) << steer << ": " << steered.body.substr(0, 200);
    EXPECT_EQ(steered.json["error"]["code"], "invalid_path") << steer;
    EXPECT_EQ(steered.body.find("coderunner_"), std::string::npos) << steer;
    EXPECT_EQ(steered.body.find("\"paths\""), std::string::npos) << steer;
    EXPECT_EQ(x.Get(files + steer).json["error"]["code"], "invalid_path") << steer;
  }

  const std::string artifact = "/v1/jobs/" + job + "/artifacts/report.bin";
  HttpAnswer direct = x.Get(artifact);
  HttpAnswer relayed = y.Get(artifact);
  EXPECT_EQ(direct.status, 200);
  EXPECT_EQ(relayed.status, 200) << relayed.body;
  EXPECT_EQ(relayed.body.size(), 2048u);
  EXPECT_EQ(relayed.body, direct.body);
  EXPECT_EQ(relayed.headers["x-coderunner-node"], x.instance());

  // X crashes: its node row still looks alive for a while, but it refuses
  // connections, and its state is gone with it.
  x.Kill9();
  EXPECT_EQ(Query(conninfo_, "SELECT id FROM nodes WHERE id = '" + x.instance() + "'").size(), 1u);
  HttpAnswer lost = y.Post(exec, json{{"code", "print(x)"}}.dump());
  EXPECT_EQ(lost.status, 410) << lost.body;
  EXPECT_EQ(lost.json["error"]["code"], "state_lost") << lost.body;
  // Deleting it through Y: still 410, and its placement is forgotten.
  EXPECT_EQ(y.Delete("/v1/sandboxes/" + sbx).status, 410);
  EXPECT_TRUE(Query(conninfo_, "SELECT node FROM sandbox_owners WHERE id = '" + sbx + "'").empty());
  HttpAnswer gone = y.Get(artifact);
  EXPECT_EQ(gone.status, 410) << gone.body;
  EXPECT_EQ(gone.json["error"]["code"], "artifacts_gone") << gone.body;
  EXPECT_NE(gone.json["error"]["message"].get<std::string>().find(x.instance()), std::string::npos);
  // X restarted with its instance removes what the kill left on the engine.
  auto again = std::make_unique<ServerProcess>(x);
  EXPECT_TRUE(again->started()) << again->log();
  EXPECT_TRUE(again->Stop()) << again->log();
  EXPECT_TRUE(y.Stop()) << y.log();
}

// `curl` of `method` `url` with `headers` and `body`: the answer's body,
// then its status on a line of its own.
std::string Curl(const std::string& method, const std::string& url,
                 const std::vector<std::string>& headers, const std::string& body = "") {
  std::string cmd = "curl -s -X " + method + " -w '\\n%{http_code}' '" + url + "'";
  for (const std::string& h : headers) cmd += " -H '" + h + "'";
  if (!body.empty()) cmd += " --data-binary '" + body + "'";
  return RunCommand(cmd).output;
}

// The status line Curl's answer ends with.
std::string StatusOf(const std::string& answer) { return answer.substr(answer.rfind('\n') + 1); }

TEST_F(PgForwardTest, TheE2bSdkReachesASandboxThroughAnotherNodeThenFindsItGoneWithItsNode) {
  const std::string keys = ApiKeysYaml({{"acme", "pro", kAcmeKey}, {"globex", "pro", kGlobexKey}});
  auto a = Node(keys);
  auto b = Node(keys);
  ASSERT_TRUE(a->started() && b->started());
  const std::string url_a = "http://127.0.0.1:" + std::to_string(a->port()) + "/e2b";
  const std::string url_b = "http://127.0.0.1:" + std::to_string(b->port()) + "/e2b";
  CommandResult run = RunCommand(
      "E2B_API_URL='" + url_a + "' E2B_SANDBOX_URL='" + url_a + "' E2B_OTHER_NODE_URL='" + url_b +
      "' E2B_API_KEY='" + kAcmeKey + "' E2B_OTHER_API_KEY='" + kGlobexKey +
      "' CODERUNNER_E2B_CLIENTS_DIR='" CODERUNNER_E2B_CLIENTS_DIR
      "' node --test --test-reporter=spec '" CODERUNNER_E2B_TESTS_DIR "/fleet_check.mjs'");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("\u2139 fail 0"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("\u2139 skipped 0"), std::string::npos) << run.output;

  // A sandbox on A; A crashes; through B it is not found, and says why.
  const std::string key = std::string("X-API-Key: ") + kAcmeKey;
  const std::string made =
      Curl("POST", url_a + "/v2/sandboxes", {key, "Content-Type: application/json"}, "{}");
  const json sandbox = json::parse(made.substr(0, made.rfind('\n')), nullptr, false);
  ASSERT_TRUE(sandbox.contains("sandboxID")) << made;
  const std::string id = sandbox["sandboxID"];
  a->Kill9();
  const std::string info = Curl("GET", url_b + "/sandboxes/" + id, {key});
  EXPECT_EQ(StatusOf(info), "404") << info;
  EXPECT_NE(info.find("is gone: its state is lost"), std::string::npos) << info;
  const std::string listed =
      Curl("POST", url_b + "/process.Process/List",
           {"E2b-Sandbox-Id: " + id, "X-Access-Token: " + sandbox.value("envdAccessToken", ""),
            "Content-Type: application/json"},
           "{}");
  EXPECT_EQ(StatusOf(listed), "404") << listed;
  EXPECT_NE(listed.find("\"state_lost\""), std::string::npos) << listed;
  // Killed through B: its placement is forgotten.
  EXPECT_EQ(StatusOf(Curl("DELETE", url_b + "/sandboxes/" + id, {key})), "404");
  EXPECT_TRUE(Query(conninfo_, "SELECT node FROM sandbox_owners WHERE id = '" + id + "'").empty());
  auto again = std::make_unique<ServerProcess>(*a);
  EXPECT_TRUE(again->started()) << again->log();
  EXPECT_TRUE(again->Stop()) << again->log();
  EXPECT_TRUE(b->Stop()) << b->log();
}

}  // namespace
}  // namespace coderunner::testing
