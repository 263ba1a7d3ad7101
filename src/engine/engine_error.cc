#include "engine_error.h"

#include <nlohmann/json.hpp>

namespace coderunner::engine {

std::string EngineMessage(std::string_view body) {
  // Never throws: a garbage body from a misbehaving engine is still a message.
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) {
    auto it = j.find("message");
    if (it != j.end() && it->is_string()) return it->get<std::string>();
  }
  std::string raw(body.substr(0, 512));
  while (!raw.empty() && (raw.back() == '\n' || raw.back() == '\r')) raw.pop_back();
  return raw.empty() ? "(empty body)" : raw;
}

Status StatusFromEngine(const HttpResponse& response, std::string_view operation,
                        StatusCode conflict) {
  if (response.status >= 200 && response.status < 300) return OkStatus();
  StatusCode code;
  switch (response.status) {
    case 400:
      code = StatusCode::kInvalidArgument;
      break;
    case 404:
      code = StatusCode::kNotFound;
      break;
    case 409:
      code = conflict;
      break;
    case 502:
    case 503:
    case 504:
      code = StatusCode::kUnavailable;
      break;
    default:
      code = StatusCode::kInternal;
  }
  std::string message = std::string(operation) + ": " + EngineMessage(response.body) + " (HTTP " +
                        std::to_string(response.status) + ")";
  return Status(code, std::move(message), "engine_" + std::string(StatusCodeName(code)));
}

}  // namespace coderunner::engine
