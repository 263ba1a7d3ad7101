#include "coderunner/engine/system.h"

#include <nlohmann/json.hpp>

#include "coderunner/engine/transport.h"
#include "engine_error.h"

namespace coderunner::engine {

Status SystemClient::Ping() {
  CR_ASSIGN_OR_RETURN(HttpResponse resp, transport_.Do({"GET", "/_ping", "", timeout_}));
  while (!resp.body.empty() && (resp.body.back() == '\n' || resp.body.back() == '\r')) {
    resp.body.pop_back();
  }
  if (resp.status != 200 || resp.body != "OK") {
    Status s = StatusFromEngine(resp, "ping engine");
    return UnavailableError(s.message(), kReasonEngineUnavailable);
  }
  return OkStatus();
}

StatusOr<EngineVersion> SystemClient::Version() {
  CR_ASSIGN_OR_RETURN(HttpResponse resp, transport_.Do({"GET", "/version", "", timeout_}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "engine version"));
  auto body = nlohmann::json::parse(resp.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) {
    return InternalError("engine version: not a JSON object", "engine_bad_response");
  }
  EngineVersion v;
  if (body.contains("Version") && body["Version"].is_string()) v.version = body["Version"];
  if (body.contains("ApiVersion") && body["ApiVersion"].is_string()) {
    v.api_version = body["ApiVersion"];
  }
  if (body.contains("Components") && body["Components"].is_array()) {
    for (const auto& c : body["Components"]) {
      if (c.is_object() && c.contains("Name") && c["Name"].is_string() &&
          c["Name"].get<std::string>().find("Podman") != std::string::npos) {
        v.kind = EngineKind::kPodman;
      }
    }
  }
  return v;
}

}  // namespace coderunner::engine
