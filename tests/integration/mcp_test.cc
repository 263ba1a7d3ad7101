// The MCP server (docs/mcp.md) on a live service: the Streamable HTTP
// transport's edges, with a small JSON-RPC client of our own (McpTest).
// Real clients against it are McpClientTest (mcp_client_test.cc); what the
// service does with the jobs is the REST API's and the engines' (their own
// suites); the hostile corpus through run_code is McpAdversarialTest
// (adversarial_test.cc).
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "engine_fixture.h"
#include "mcp_client.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr char kAcmeKey[] = "mcp-acme-key-0123456789";
constexpr char kGlobexKey[] = "mcp-globex-key-0123456789";
constexpr char kTinyKey[] = "mcp-tiny-key-0123456789";  // 3 requests a minute

// Two tenants on pro (600 requests a minute: the checks below make
// dozens) and one allowed 3 a minute, each holding at most two sessions.
class McpTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"acme", "pro", kAcmeKey},
                        {"globex", "pro", kGlobexKey},
                        {"tiny", "tiny", kTinyKey}}) +
           "tiers:\n  tiny: {requests_per_minute: 3}\n"
           "mcp: {max_sessions_per_tenant: 2}\n";
  }

  McpClient Client(const std::string& key) const { return McpClient(server_->port(), key); }
};

// The JSON-RPC error code of an answer's response; 0 if it has none.
int RpcErrorCode(const McpAnswer& a) {
  if (!a.response.is_object() || !a.response.contains("error")) return 0;
  const json& code = a.response["error"]["code"];
  return code.is_number_integer() ? code.get<int>() : 0;
}

TEST_F(McpTest, InitializeNegotiatesTheRevisionAndOpensASession) {
  struct Case {
    const char* asked;
    const char* answered;
  };
  const Case cases[] = {
      {"2025-06-18", "2025-06-18"},
      {"2025-11-25", "2025-11-25"},
      {"2025-03-26", "2025-03-26"},
      {"2024-11-05", "2025-06-18"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.asked);
    McpClient mcp = Client(kAcmeKey);
    json init = {{"jsonrpc", "2.0"},
                 {"id", 1},
                 {"method", "initialize"},
                 {"params",
                  {{"protocolVersion", c.asked},
                   {"capabilities", json::object()},
                   {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}};
    McpAnswer a = mcp.Post(init.dump());
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.headers["content-type"].rfind("application/json", 0), 0u) << a.body;
    ASSERT_FALSE(a.headers["mcp-session-id"].empty()) << a.body;
    const json& result = a.response["result"];
    EXPECT_EQ(result["protocolVersion"], c.answered) << a.body;
    EXPECT_TRUE(result["serverInfo"]["name"].is_string()) << a.body;
    for (const char* capability : {"tools", "resources", "prompts", "logging"}) {
      EXPECT_TRUE(result["capabilities"].contains(capability)) << capability << ": " << a.body;
    }
    // Ended at once: this suite's tenants hold two sessions at most.
    mcp.set_session_id(a.headers["mcp-session-id"]);
    EXPECT_EQ(mcp.Delete().status, 200);
  }
}

TEST_F(McpTest, ASessionAnswersUntilItIsDeleted) {
  McpClient mcp = Client(kAcmeKey);
  McpAnswer init = mcp.Initialize();
  ASSERT_EQ(init.status, 200) << init.body;
  McpAnswer note = mcp.Notify("notifications/progress", {{"progressToken", 1}, {"progress", 1}});
  EXPECT_EQ(note.status, 202) << note.body;
  EXPECT_EQ(note.body, "");
  McpAnswer ping = mcp.Request("ping");
  ASSERT_EQ(ping.status, 200) << ping.body;
  EXPECT_EQ(ping.response["result"], json::object()) << ping.body;
  McpAnswer templates = mcp.Request("resources/templates/list");
  ASSERT_EQ(templates.status, 200) << templates.body;
  std::set<std::string> uris;
  for (const auto& t : templates.response["result"]["resourceTemplates"]) {
    uris.insert(t.value("uriTemplate", ""));
  }
  EXPECT_EQ(uris, (std::set<std::string>{"coderunner://jobs/{job_id}/artifacts/{path}",
                                         "coderunner://sandboxes/{sandbox_id}/files/{path}"}))
      << templates.body;
  McpAnswer prompts = mcp.Request("prompts/list");
  std::set<std::string> names;
  for (const auto& p : prompts.response["result"]["prompts"]) names.insert(p.value("name", ""));
  EXPECT_EQ(names, (std::set<std::string>{"run_snippet", "analyze_data"})) << prompts.body;

  EXPECT_EQ(mcp.Delete().status, 200);
  EXPECT_EQ(mcp.Request("ping").status, 404);
}

TEST_F(McpTest, ToolsCallAnswersAnEventStreamEndingWithItsResponse) {
  McpClient mcp = Client(kAcmeKey);
  ASSERT_EQ(mcp.Initialize().status, 200);
  McpAnswer a =
      mcp.Request("tools/call", {{"name", "run_code"},
                                 {"arguments", {{"language", "python"}, {"code", "print(6*7)"}}},
                                 {"_meta", {{"progressToken", "p-1"}}}});
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.headers["content-type"].rfind("text/event-stream", 0), 0u) << a.body;
  ASSERT_FALSE(a.messages.empty()) << a.body;
  EXPECT_EQ(a.messages.back(), a.response) << "the response is not the stream's last message";
  const json& result = a.response["result"];
  EXPECT_EQ(result.value("isError", false), false) << a.body;
  EXPECT_EQ(result["structuredContent"]["stdout"], "42\n") << a.body;
  EXPECT_EQ(result["structuredContent"]["status"], "succeeded") << a.body;
  for (const json& m : a.messages) {
    if (m.value("method", "") == "notifications/progress") {
      EXPECT_EQ(m["params"]["progressToken"], "p-1") << m.dump();
    }
  }
  // A refused request is a result naming the REST error, not a JSON-RPC error.
  McpAnswer bad = mcp.CallTool("run_code", {{"language", "cobol"}, {"code", "x"}});
  ASSERT_EQ(bad.status, 200) << bad.body;
  EXPECT_EQ(bad.response["result"]["isError"], true) << bad.body;
  EXPECT_EQ(bad.response["result"]["structuredContent"]["error"]["code"], "unknown_language")
      << bad.body;
}

// Who is asking, for the table below.
enum class Caller { kAcme, kGlobex, kNoKey, kUnknownKey };

TEST_F(McpTest, RefusedRequestsGetTheDocumentedStatus) {
  McpClient acme = Client(kAcmeKey);
  ASSERT_EQ(acme.Initialize().status, 200);
  const std::string port = std::to_string(server_->port());
  const std::string ping = R"({"jsonrpc":"2.0","id":7,"method":"ping"})";
  std::string deep = std::string(300000, '[') + std::string(300000, ']');
  struct Case {
    const char* name;
    Caller caller;
    std::map<std::string, std::string> headers;
    std::string body;
    bool with_session;
    int status;
    const char* code;  // In the body when set: the error's code.
  };
  const Case cases[] = {
      {"no session id", Caller::kAcme, {}, ping, false, 400, nullptr},
      {"unknown session id",
       Caller::kAcme,
       {{"Mcp-Session-Id", "no-such-session"}},
       ping,
       true,
       404,
       nullptr},
      {"another tenant's session", Caller::kGlobex, {}, ping, true, 404, nullptr},
      {"no key", Caller::kNoKey, {}, ping, true, 401, nullptr},
      {"unknown key", Caller::kUnknownKey, {}, ping, true, 401, nullptr},
      {"Host evil.example.com",
       Caller::kAcme,
       {{"Host", "evil.example.com"}},
       ping,
       true,
       403,
       "mcp_origin_refused"},
      {"Origin http://evil.example.com",
       Caller::kAcme,
       {{"Origin", "http://evil.example.com"}},
       ping,
       true,
       403,
       "mcp_origin_refused"},
      {"Accept without text/event-stream",
       Caller::kAcme,
       {{"Accept", "application/json"}},
       ping,
       true,
       406,
       nullptr},
      {"Accept without application/json",
       Caller::kAcme,
       {{"Accept", "text/event-stream"}},
       ping,
       true,
       406,
       nullptr},
      {"unsupported MCP-Protocol-Version",
       Caller::kAcme,
       {{"MCP-Protocol-Version", "1999-01-01"}},
       ping,
       true,
       400,
       nullptr},
      {"a batch", Caller::kAcme, {}, "[" + ping + "]", true, 400, nullptr},
      {"JSON nested 300,000 deep", Caller::kAcme, {}, deep, true, 400, "json_too_deep"},
      // What is accepted: a loopback Host by any name, and its Origin.
      {"Host localhost", Caller::kAcme, {{"Host", "localhost:" + port}}, ping, true, 200, nullptr},
      {"Host [::1]", Caller::kAcme, {{"Host", "[::1]:" + port}}, ping, true, 200, nullptr},
      {"Origin of a loopback host",
       Caller::kAcme,
       {{"Origin", "http://localhost:" + port}},
       ping,
       true,
       200,
       nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const char* key = c.caller == Caller::kAcme         ? kAcmeKey
                      : c.caller == Caller::kGlobex     ? kGlobexKey
                      : c.caller == Caller::kUnknownKey ? "not-a-key-0123456789"
                                                        : "";
    McpClient as = Client(key);
    as.set_session_id(acme.session_id());
    McpAnswer a = as.Post(c.body, c.headers, c.with_session);
    EXPECT_EQ(a.status, c.status) << a.body.substr(0, 500);
    if (c.code != nullptr) {
      EXPECT_NE(a.body.find(c.code), std::string::npos) << a.body;
    }
  }
  // The same deep body is refused the same way by the REST API.
  HttpAnswer rest = server_->Call("POST", "/v1/execute", kAcmeKey, deep);
  EXPECT_EQ(rest.status, 400);
  EXPECT_EQ(rest.json["error"]["code"], "json_too_deep") << rest.body;
  EXPECT_EQ(acme.Request("ping").status, 200) << "the session did not survive the refusals";
}

TEST_F(McpTest, ProtocolFaultsAreJsonRpcErrors) {
  McpClient mcp = Client(kAcmeKey);
  ASSERT_EQ(mcp.Initialize().status, 200);
  struct Case {
    const char* name;
    std::string body;
    int rpc_code;
  };
  const Case cases[] = {
      {"unknown method", R"({"jsonrpc":"2.0","id":1,"method":"no/such/method"})", -32601},
      {"unknown tool",
       R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool"}})",
       -32602},
      {"arguments not an object",
       R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_code","arguments":7}})",
       -32602},
      {"no tool name", R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}})", -32602},
      // Not a valid Request object (JSON-RPC 2.0: params is structured).
      {"params not structured",
       R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":"run_code"})", -32600},
      {"not JSON-RPC 2.0", R"({"jsonrpc":"1.0","id":4,"method":"ping"})", -32600},
      {"not JSON", R"({"jsonrpc":"2.0","id":5,)", -32700},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    McpAnswer a = mcp.Post(c.body);
    // The contract names the JSON-RPC code, not the HTTP status of a
    // message that is not a valid request.
    EXPECT_TRUE(a.status == 200 || a.status == 400) << a.status << " " << a.body;
    EXPECT_EQ(RpcErrorCode(a), c.rpc_code) << a.body;
  }
  EXPECT_EQ(mcp.Request("ping").status, 200);
}

TEST_F(McpTest, EveryPostCountsAgainstTheTiersRequestsPerMinute) {
  McpClient mcp = Client(kTinyKey);
  ASSERT_EQ(mcp.Initialize().status, 200);  // initialize and initialized: 2
  EXPECT_EQ(mcp.Request("ping").status, 200);
  McpAnswer a = mcp.Request("ping");
  EXPECT_EQ(a.status, 429) << a.body;
  EXPECT_NE(a.body.find("rate_limited"), std::string::npos) << a.body;
}

TEST_F(McpTest, ASessionHoldsAtMostTwoGetStreams) {
  McpClient mcp = Client(kAcmeKey);
  ASSERT_EQ(mcp.Initialize().status, 200);
  {
    McpGetStream one(server_->port(), kAcmeKey, mcp.session_id());
    McpGetStream two(server_->port(), kAcmeKey, mcp.session_id());
    ASSERT_EQ(one.WaitOpened(), 200);
    ASSERT_EQ(two.WaitOpened(), 200);
    McpGetStream three(server_->port(), kAcmeKey, mcp.session_id());
    EXPECT_EQ(three.WaitOpened(), 429);
    McpGetStream unknown(server_->port(), kAcmeKey, "no-such-session");
    EXPECT_EQ(unknown.WaitOpened(), 404);
    McpGetStream theirs(server_->port(), kGlobexKey, mcp.session_id());
    EXPECT_EQ(theirs.WaitOpened(), 404);
    EXPECT_EQ(mcp.Delete().status, 200);  // Ends one and two.
  }
}

// A tools/call in flight when its session is deleted: its job is cancelled.
TEST_F(McpTest, DeletingASessionCancelsItsRunningJobs) {
  McpClient mcp = Client(kAcmeKey);
  ASSERT_EQ(mcp.Initialize().status, 200);
  McpAnswer call;
  std::thread caller([&] {
    McpClient same = mcp;
    call = same.CallTool("run_code",
                         {{"language", "python"}, {"code", "import time\ntime.sleep(60)"}});
  });
  auto jobs = [&](const char* status) {
    HttpAnswer a = server_->Call("GET", std::string("/v1/jobs?status=") + status, kAcmeKey);
    return a.json.is_object() ? a.json["jobs"].size() : 0u;
  };
  EXPECT_TRUE(Eventually([&] { return jobs("running") == 1; })) << "the job never ran";
  EXPECT_EQ(mcp.Delete().status, 200);
  EXPECT_TRUE(Eventually([&] { return jobs("cancelled") == 1; })) << "the job was not cancelled";
  caller.join();
  EXPECT_EQ(call.status, 200) << call.body;
}

// mcp.allowed_hosts and mcp.allowed_origins let other names in; mcp.enabled
// false serves no /mcp at all.
TEST_F(McpTest, ConfiguredHostsAndOriginsAreAcceptedAndADisabledServerHasNoMcp) {
  ServerProcess named(
      "pool: {size: 0}\n"
      "mcp: {allowed_hosts: [coderunner.internal], allowed_origins: "
      "[\"https://app.example.com\"]}\n");
  ASSERT_TRUE(named.started()) << named.log();
  struct Case {
    const char* name;
    std::map<std::string, std::string> headers;
    int status;
  };
  const Case cases[] = {
      {"a listed host", {{"Host", "coderunner.internal:8080"}}, 200},
      {"a listed host and its origin",
       {{"Host", "coderunner.internal"}, {"Origin", "http://coderunner.internal"}},
       200},
      {"a listed origin", {{"Origin", "https://app.example.com"}}, 200},
      {"another host", {{"Host", "other.internal"}}, 403},
      {"another origin", {{"Origin", "https://evil.example.com"}}, 403},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    McpClient mcp(named.port(), "");
    McpAnswer a = mcp.Post(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})",
        c.headers);
    EXPECT_EQ(a.status, c.status) << a.body;
  }
  EXPECT_TRUE(named.Stop()) << named.log();

  ServerProcess disabled("pool: {size: 0}\nmcp: {enabled: false}\n");
  ASSERT_TRUE(disabled.started()) << disabled.log();
  EXPECT_EQ(McpClient(disabled.port(), "").Initialize().status, 404);
  EXPECT_TRUE(disabled.Stop()) << disabled.log();
}

// At its bound (2 here) a tenant's new session ends its least recently
// used quiet one: a GET stream does not keep a session (clients leave
// without DELETE, their stream still open), a call in flight does; when
// every one has a call in flight, initialize is 429.
TEST_F(McpTest, AtTheBoundANewSessionEndsTheLeastRecentlyUsedQuietOne) {
  McpClient first = Client(kAcmeKey);
  McpClient second = Client(kAcmeKey);
  McpClient third = Client(kAcmeKey);
  ASSERT_EQ(first.Initialize().status, 200);
  ASSERT_EQ(second.Initialize().status, 200);
  {
    McpGetStream first_stream(server_->port(), kAcmeKey, first.session_id());
    ASSERT_EQ(first_stream.WaitOpened(), 200);
    ASSERT_EQ(second.Request("ping").status, 200);  // first is now the least recently used.
    ASSERT_EQ(third.Initialize().status, 200);
    EXPECT_EQ(first.Request("ping").status, 404);
    EXPECT_EQ(second.Request("ping").status, 200);
    EXPECT_EQ(third.Request("ping").status, 200);
  }
  // A call in flight on each: nothing may end, the next initialize is 429.
  const json sleep = {{"language", "python"},
                      {"code", "import time\ntime.sleep(4)\nprint('slept')"}};
  McpAnswer second_call, third_call;
  std::thread a([&] { second_call = second.CallTool("run_code", sleep); });
  std::thread b([&] { third_call = third.CallTool("run_code", sleep); });
  for (int i = 0; i < 400; ++i) {  // Until both jobs run (at most 20 s).
    HttpAnswer running = server_->Call("GET", "/v1/jobs?status=running", kAcmeKey);
    if (running.json.is_object() && running.json["jobs"].size() == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  McpAnswer refused = Client(kAcmeKey).Initialize();
  EXPECT_EQ(refused.status, 429) << refused.body;
  EXPECT_NE(refused.body.find("mcp_sessions_exhausted"), std::string::npos) << refused.body;
  EXPECT_EQ(Client(kGlobexKey).Initialize().status, 200);  // The bound is the tenant's.
  a.join();
  b.join();
  EXPECT_EQ(second_call.response["result"]["structuredContent"]["stdout"], "slept\n")
      << second_call.body;
  EXPECT_EQ(third_call.response["result"]["structuredContent"]["stdout"], "slept\n")
      << third_call.body;
  // Both quiet again (their calls began in either order: third is used
  // once more, so second is the least recently used): second makes room.
  ASSERT_EQ(third.Request("ping").status, 200);
  ASSERT_EQ(Client(kAcmeKey).Initialize().status, 200);
  EXPECT_EQ(second.Request("ping").status, 404);
  EXPECT_EQ(third.Request("ping").status, 200);
}

}  // namespace
}  // namespace coderunner::testing
