// Hostile request bodies against every route that can carry one (issue 15,
// confirmed attack 1: a /v1/jobs/batch body nesting arrays 300,000 deep
// killed the service). The routes come from the live server's
// GET /openapi.json, which a unit test checks both ways against the routes
// a real Server registers, so a route added later is covered here too.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "llm_engine_test.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr const char* kKey = "body-bounds-key-0123456789";

std::string Repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

struct HostileBody {
  const char* name;
  std::string body;
  const char* code;  // The error.code of the 400 it must get; nullptr: any documented 4xx.
};

// All of them under server.max_body_bytes (2 MiB), so that it is the JSON
// bounds that answer, not the size limit. Too deep, or not UTF-8: refused
// before a parser descends into them.
std::vector<HostileBody> DeepOrInvalidBodies() {
  return {
      {"300,000 nested arrays", Repeat("[", 300000) + Repeat("]", 300000), "json_too_deep"},
      {"300,000 nested arrays in a batch (the attack as found)",
       "{\"jobs\":[" + Repeat("[", 300000) + Repeat("]", 300000) + "]}", "json_too_deep"},
      {"200,000 nested objects", Repeat("{\"a\":", 200000) + "1" + Repeat("}", 200000),
       "json_too_deep"},
      {"300,000 unclosed arrays", Repeat("[", 300000), "json_too_deep"},
      {"invalid UTF-8 in a string", "{\"code\":\"print(1)\xFF\xFE\"}", "invalid_json"},
      {"Latin-1 text", "{\"intent\":\"caf\xE9\",\"jobs\":[{\"code\":\"\xE9\"}]}", "invalid_json"},
  };
}

// Within every bound, but wide: parsed whole, then answered by the route.
std::vector<HostileBody> WideBodies() {
  std::string wide_object = "{";
  for (int i = 0; i < 100000; ++i) {
    wide_object += (i == 0 ? "\"k" : ",\"k") + std::to_string(i) + "\":0";
  }
  wide_object += "}";
  return {
      {"250,000-element array", "[" + Repeat("0,", 249999) + "0]", nullptr},
      {"100,000-key object", wide_object, nullptr},
  };
}

// Test ids of the right shape for each kind of resource, so that the route
// matches (and its handler would run) though nothing by that id exists.
const std::map<std::string, std::string>& IdsByCollection() {
  static const auto* ids = new std::map<std::string, std::string>{
      {"jobs", "job-000000000000000000000000"},
      {"sandboxes", "sbx-000000000000000000000000"},
      {"volumes", "vol-000000000000000000000000"},
      {"contexts", "python"},  // E2B code contexts (docs/e2b.md).
  };
  return *ids;
}

// E2B's calls into a sandbox (docs/e2b.md) take the sandbox's access token,
// not an API key: without it (as here) they are 401 whatever else comes.
bool IsE2bEnvd(const std::string& path) {
  return path.rfind("/e2b/", 0) == 0 && path.rfind("/e2b/v2/", 0) != 0 &&
         path.rfind("/e2b/sandboxes", 0) != 0;
}

// The routes of another service's API (docs/judge0.md,
// docs/sandbox-fusion.md), whose handlers answer in its shapes: Judge0's
// 422 {"<field>": ["<why>"]}, FastAPI's 422 {"detail": [...]}. What the
// edge refuses before them (401, a body out of bounds) is our envelope.
bool IsForeignApi(const std::string& path) {
  return path.rfind("/judge0/", 0) == 0 || path == "/run_code";
}

// A 422 in the foreign API's own shape: the reason the handler gave it.
std::string ForeignReason(const std::string& path, const HttpAnswer& a) {
  if (a.status != 422 || !a.json.is_object() || a.json.empty()) return "";
  if (path == "/run_code") return a.json["detail"].is_array() ? "sandbox_fusion_invalid" : "";
  for (const auto& [field, why] : a.json.items()) {
    if (!why.is_array()) return "";
  }
  return "judge0_invalid";
}

// The error's reason: error.code, or at /mcp (a JSON-RPC error, whose
// code is a number) error.data.code, or under /e2b (E2B's {"code",
// "message"}) reason, or a foreign API's 422 (ForeignReason).
std::string Reason(const std::string& path, const HttpAnswer& a) {
  if (path.rfind("/e2b/", 0) == 0) return a.json.is_object() ? a.json.value("reason", "") : "";
  if (IsForeignApi(path) && !ForeignReason(path, a).empty()) return ForeignReason(path, a);
  if (!a.json.is_object() || !a.json["error"].is_object()) return "";
  const json& error = a.json["error"];
  if (path != "/mcp") return error.value("code", "");
  EXPECT_EQ(a.json.value("jsonrpc", ""), "2.0") << a.body.substr(0, 300);
  return error.contains("data") && error["data"].is_object() ? error["data"].value("code", "") : "";
}

// `path` (an OpenAPI template) with its {id} and {path} filled in; "" if a
// template names a collection this test does not know (it says which).
std::string Concrete(const std::string& path) {
  std::string out;
  size_t i = 0;
  while (i < path.size()) {
    size_t open = path.find('{', i);
    if (open == std::string::npos) return out + path.substr(i);
    out += path.substr(i, open - i);
    size_t close = path.find('}', open);
    std::string name = path.substr(open + 1, close - open - 1);
    if (name == "path") {
      out += "x";
    } else {
      size_t slash = out.find_last_of('/', out.size() - 2);
      std::string collection = out.substr(slash + 1, out.size() - slash - 2);
      auto id = IdsByCollection().find(collection);
      if (id == IdsByCollection().end()) {
        ADD_FAILURE() << path << ": no test id for '" << collection
                      << "': add one to IdsByCollection() so its route is attacked too";
        return "";
      }
      out += id->second;
    }
    i = close + 1;
  }
  return out;
}

// A model is configured so that /v1/intents reads its body (without one it
// answers 503 before reading it); no body here may reach it.
class BodyBoundsTest : public LlmEngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"acme", "enterprise", kKey}}) + "llm: {base_url: \"" + llm_->base_url() +
           "\", model: fake-model}\n";
  }

  // "POST /v1/jobs/batch"-style names of every documented operation whose
  // method carries a body, with the concrete path to send to.
  std::vector<std::pair<std::string, std::string>> BodyRoutes() {
    HttpAnswer doc = server_->Get("/openapi.json");
    EXPECT_EQ(doc.status, 200);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [path, item] : doc.json["paths"].items()) {
      for (const auto& [method, op] : item.items()) {
        (void)op;
        if (method != "post" && method != "delete" && method != "put" && method != "patch") {
          continue;
        }
        std::string upper = method;
        for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        std::string concrete = Concrete(path);
        if (!concrete.empty()) out.emplace_back(upper, concrete);
      }
    }
    return out;
  }
};

// Each of `bodies` to every body route, without a key and with one: the
// service answers each as documented, echoes none, and stays up.
void ExpectEveryRouteRefuses(ServerProcess& server,
                             const std::vector<std::pair<std::string, std::string>>& routes,
                             const std::vector<HostileBody>& bodies) {
  for (const auto& hostile : bodies) {
    for (const auto& [method, path] : routes) {
      SCOPED_TRACE(std::string(hostile.name) + " -> " + method + " " + path);
      // Without a key, no body is even parsed: 401 whatever it holds.
      HttpAnswer anonymous = server.Call(method, path, "", hostile.body);
      EXPECT_EQ(anonymous.status, 401) << anonymous.body.substr(0, 300);
      EXPECT_EQ(Reason(path, anonymous), "unauthenticated");
      HttpAnswer a = server.Call(method, path, kKey, hostile.body);
      ASSERT_NE(a.status, 0) << "no answer: the service died\n" << server.log().substr(0, 4000);
      std::string code = Reason(path, a);
      if (IsE2bEnvd(path)) {
        EXPECT_EQ(a.status, 401) << a.body.substr(0, 300);
        EXPECT_EQ(code, "unauthenticated") << a.body.substr(0, 300);
        ASSERT_EQ(server.Get("/healthz").status, 200) << server.log().substr(0, 4000);
        continue;
      }
      ASSERT_TRUE(a.json.is_object() && (path.rfind("/e2b/", 0) == 0 ||
                                         (IsForeignApi(path) && !ForeignReason(path, a).empty()) ||
                                         a.json["error"].is_object()))
          << a.body.substr(0, 300);
      EXPECT_NE(code, "not_found") << "the test's path did not match the route";
      if (hostile.code != nullptr) {
        EXPECT_EQ(a.status, 400) << a.body.substr(0, 300);
        EXPECT_EQ(code, hostile.code) << a.body.substr(0, 300);
      } else {
        // Well-formed JSON of the wrong shape: the route's own answer.
        // /mcp asks for its Accept header (406) before it reads the message.
        EXPECT_TRUE(a.status == 400 || a.status == 404 || a.status == 413 || a.status == 422 ||
                    (path == "/mcp" && a.status == 406))
            << a.status << " " << a.body.substr(0, 300);
        EXPECT_FALSE(code.empty()) << a.body.substr(0, 300);
      }
      EXPECT_LT(a.body.size(), 4096u) << "the answer echoes the body";
      if (path.rfind("/api/v2/", 0) == 0) {
        EXPECT_TRUE(a.json["message"].is_string()) << "Piston's error shape: " << a.body;
      }
      HttpAnswer health = server.Get("/healthz");
      ASSERT_EQ(health.status, 200) << "the service died\n" << server.log().substr(0, 4000);
    }
  }
}

TEST_F(BodyBoundsTest, EveryBodyRouteRefusesHostileJsonAndTheServiceStaysUp) {
  auto routes = BodyRoutes();
  // The routes of issue 15 are among them (a sanity check of the listing).
  std::set<std::string> names;
  for (const auto& [method, path] : routes) names.insert(method + " " + path);
  for (const char* want :
       {"POST /v1/execute", "POST /v1/jobs", "POST /v1/jobs/batch",
        "POST /v1/jobs/job-000000000000000000000000/replay", "POST /v1/intents",
        "POST /v1/sandboxes", "POST /v1/sandboxes/sbx-000000000000000000000000/execute",
        "POST /v1/volumes", "POST /api/v2/execute", "POST /api/v2/piston/execute",
        "POST /api/v2/packages", "DELETE /api/v2/packages"}) {
    EXPECT_TRUE(names.count(want)) << want << " is not among the documented body routes";
  }
  ExpectEveryRouteRefuses(*server_, routes, DeepOrInvalidBodies());
  // Nothing of it reached the model or an engine.
  EXPECT_TRUE(llm_->Requests().empty()) << llm_->Requests().size() << " model calls";
  EXPECT_EQ(CountContainers(server_->socket(), server_->instance(), server_->PoolToken()), 0);
}

// Wide bodies are parsed whole: under the sanitizers a minute for every
// route, so this case runs in the main build (CODERUNNER_NOT_SANITIZED_CASES),
// and the bounded parser under ASan in its fuzzer and unit tests.
TEST_F(BodyBoundsTest, EveryBodyRouteAnswersWideJsonItselfAndTheServiceStaysUp) {
  ExpectEveryRouteRefuses(*server_, BodyRoutes(), WideBodies());
  EXPECT_TRUE(llm_->Requests().empty()) << llm_->Requests().size() << " model calls";
  EXPECT_EQ(CountContainers(server_->socket(), server_->instance(), server_->PoolToken()), 0);
}

}  // namespace
}  // namespace coderunner::testing
