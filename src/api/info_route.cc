#include "info_route.h"

#include <string>

#include "coderunner/wire/limits_json.h"

namespace coderunner::api {

nlohmann::json InfoJson(const config::Config& config, const InfoFeatures& features) {
  const bool native = config.code_runner.runtime == config::RunMode::kNative;
  return {{"auth", {{"mode", config.auth.mode}}},
          {"llm",
           {{"configured", !config.llm.base_url.empty()},
            {"config_keys", {"llm.base_url", "llm.model", "llm.api_key_env"}}}},
          {"runtime", native ? "native" : "sandboxed"},
          {"features",
           {{"sandboxes", features.sandboxes},
            {"volumes", features.volumes},
            {"mcp", features.mcp},
            {"e2b", features.e2b}}},
          {"limits",
           {{"default", wire::LimitsToJson(config.default_limits)},
            {"max", wire::LimitsToJson(config.max_limits)}}}};
}

void RegisterInfoRoute(RouteTable& http, const config::Config& config, const InfoFeatures& features,
                       const AuthAdapter& auth) {
  std::string body = InfoJson(config, features).dump();
  http.Get(kInfoPath, auth.Open([body](const httplib::Request&) -> StatusOr<Answer> {
    return Answer::Text(200, body);
  }));
}

}  // namespace coderunner::api
