// GET /v1/info's body from the config: what a client may know, and nothing
// secret.
#include "api/info_route.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coderunner/config/config.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

TEST(InfoRouteTest, AnswerFromConfig) {
  struct Case {
    const char* name;
    std::string auth_mode;
    std::string llm_base_url;
    config::RunMode runtime;
    InfoFeatures features;
    json want_auth, want_llm_configured, want_runtime, want_features;
  };
  const std::vector<Case> cases = {
      {"defaults: keys, no model, sandboxed",
       "api_keys",
       "",
       config::RunMode::kSandboxed,
       {true, true, true, true},
       {{"mode", "api_keys"}},
       false,
       "sandboxed",
       {{"sandboxes", true}, {"volumes", true}, {"mcp", true}, {"e2b", true}}},
      {"local development with a model",
       "none",
       "http://127.0.0.1:11434/v1",
       config::RunMode::kSandboxed,
       {true, false, false, false},
       {{"mode", "none"}},
       true,
       "sandboxed",
       {{"sandboxes", true}, {"volumes", false}, {"mcp", false}, {"e2b", false}}},
      {"native",
       "api_keys",
       "https://api.example.com/v1",
       config::RunMode::kNative,
       {false, false, true, false},
       {{"mode", "api_keys"}},
       true,
       "native",
       {{"sandboxes", false}, {"volumes", false}, {"mcp", true}, {"e2b", false}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    config::Config cfg = config::DefaultConfig();
    cfg.auth.mode = c.auth_mode;
    cfg.llm.base_url = c.llm_base_url;
    cfg.code_runner.runtime = c.runtime;
    json got = InfoJson(cfg, c.features);
    EXPECT_EQ(got["auth"], c.want_auth);
    EXPECT_EQ(got["llm"]["configured"], c.want_llm_configured);
    EXPECT_EQ(got["llm"]["config_keys"],
              json::array({"llm.base_url", "llm.model", "llm.api_key_env"}));
    EXPECT_EQ(got["runtime"], c.want_runtime);
    EXPECT_EQ(got["features"], c.want_features);
    std::vector<std::string> keys;
    for (auto& [k, v] : got.items()) keys.push_back(k);
    EXPECT_EQ(keys, (std::vector<std::string>{"auth", "features", "limits", "llm", "runtime"}));
  }
}

TEST(InfoRouteTest, LimitsInAJobRecordsShape) {
  config::Config cfg = config::DefaultConfig();
  cfg.default_limits.timeout_ms = 5000;
  cfg.max_limits.memory_bytes = 1LL << 30;
  cfg.max_limits.cpus = 2.5;
  json limits = InfoJson(cfg, {})["limits"];
  const auto& d = cfg.default_limits;
  const auto& m = cfg.max_limits;
  EXPECT_EQ(limits["default"], json({{"timeout_ms", 5000},
                                     {"cpu_ms", d.cpu_ms},
                                     {"memory_bytes", d.memory_bytes},
                                     {"pids", d.pids},
                                     {"output_bytes", d.output_bytes},
                                     {"tmp_bytes", d.tmp_bytes},
                                     {"cpus", d.cpus}}));
  EXPECT_EQ(limits["max"], json({{"timeout_ms", m.timeout_ms},
                                 {"cpu_ms", m.cpu_ms},
                                 {"memory_bytes", 1LL << 30},
                                 {"pids", m.pids},
                                 {"output_bytes", m.output_bytes},
                                 {"tmp_bytes", m.tmp_bytes},
                                 {"cpus", 2.5}}));
}

TEST(InfoRouteTest, NeverNamesSecretsModelsOrUrls) {
  config::Config cfg = config::DefaultConfig();
  cfg.auth.keys.push_back({"acme", "pro", std::string(64, 'a')});
  cfg.llm.base_url = "https://llm.internal.example/v1";
  cfg.llm.model = "secret-model-name";
  cfg.llm.api_key_env = "LLM_KEY_VARIABLE";
  std::string body = InfoJson(cfg, {true, true}).dump();
  for (const char* s :
       {"aaaaaaaa", "acme", "llm.internal", "secret-model-name", "LLM_KEY_VARIABLE"}) {
    EXPECT_EQ(body.find(s), std::string::npos) << s << " in " << body;
  }
}

}  // namespace
}  // namespace coderunner::api
