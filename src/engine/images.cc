#include "coderunner/engine/images.h"

#include <nlohmann/json.hpp>

#include "engine_error.h"

namespace coderunner::engine {
namespace {

bool IsImageNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '/' || c == ':' || c == '@';
}

std::vector<std::string> Strings(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& e : j) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

// Config.Labels: an object of strings, or null/absent (no labels).
std::map<std::string, std::string> Labels(const nlohmann::json& body) {
  std::map<std::string, std::string> out;
  auto config = body.find("Config");
  if (config == body.end() || !config->is_object()) return out;
  auto labels = config->find("Labels");
  if (labels == config->end() || !labels->is_object()) return out;
  for (const auto& [k, v] : labels->items()) {
    if (v.is_string()) out.emplace(k, v.get<std::string>());
  }
  return out;
}

}  // namespace

StatusOr<ImageInfo> ImageClient::Inspect(const std::string& name) {
  if (name.empty() || name.find("..") != std::string::npos) {
    return InvalidArgumentError("bad image name: '" + name + "'");
  }
  for (char c : name) {
    if (!IsImageNameChar(c)) return InvalidArgumentError("bad image name: '" + name + "'");
  }
  CR_ASSIGN_OR_RETURN(HttpResponse resp,
                      transport_.Do({"GET", "/images/" + name + "/json", "", timeout_}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "inspect image " + name));
  auto body = nlohmann::json::parse(resp.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("Id") || !body["Id"].is_string()) {
    return InternalError("inspect image " + name + ": engine answer has no Id",
                         "engine_bad_response");
  }
  ImageInfo info;
  info.id = body["Id"].get<std::string>();
  // Podman's compat API may omit the "sha256:" prefix.
  if (info.id.rfind("sha256:", 0) != 0) info.id = "sha256:" + info.id;
  if (body.contains("RepoTags")) info.repo_tags = Strings(body["RepoTags"]);
  if (body.contains("RepoDigests")) info.repo_digests = Strings(body["RepoDigests"]);
  info.labels = Labels(body);
  return info;
}

}  // namespace coderunner::engine
