// GET /v1/info: what the playground (or any client) needs to know before it
// asks anything else: how to authenticate, whether Execute mode has a model,
// where jobs run, which optional routes exist and the job limits.
#ifndef CODERUNNER_API_INFO_ROUTE_H_
#define CODERUNNER_API_INFO_ROUTE_H_

#include <nlohmann/json.hpp>

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/config/config.h"

namespace coderunner::api {

// GET /v1/info's path.
inline constexpr char kInfoPath[] = "/v1/info";

// Optional route families the server registered.
struct InfoFeatures {
  bool sandboxes = false;  // /v1/sandboxes answers (not the native refusal).
  bool volumes = false;    // /v1/volumes answers (not the native refusal).
  bool mcp = false;        // /mcp answers (mcp.enabled).
  bool e2b = false;        // /e2b answers (e2b.enabled, with sandboxes).
};

// The GET /v1/info body for `config`:
//   {"auth": {"mode": "api_keys"|"none"},
//    "llm": {"configured": llm.base_url set,
//            "config_keys": ["llm.base_url", "llm.model", "llm.api_key_env"]},
//    "runtime": "sandboxed"|"native" (code_runner.runtime),
//    "features": {"sandboxes", "volumes", "mcp", "e2b": bool} (`features`),
//    "limits": {"default": limits.default, "max": limits.max}}
// with each limits object in a job record's shape (wire/limits_json.h).
// Never any key, key hash, model name, URL or environment variable name.
// Pure; thread-safe.
nlohmann::json InfoJson(const config::Config& config, const InfoFeatures& features);

// Registers GET kInfoPath (no key; wrapped by `auth.Open`), answering
// InfoJson(config, features) as computed now (the config never changes
// while the server runs). `config` is not kept.
void RegisterInfoRoute(RouteTable& http, const config::Config& config, const InfoFeatures& features,
                       const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_INFO_ROUTE_H_
