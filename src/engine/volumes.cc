#include "coderunner/engine/volumes.h"

#include <nlohmann/json.hpp>

#include "engine_error.h"
#include "resource_util.h"

namespace coderunner::engine {
namespace {

using nlohmann::json;

Status CheckName(const std::string& name) { return CheckPathSegment("volume name", name); }

std::string StringField(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

VolumeInfo InfoFrom(const json& j) {
  VolumeInfo v;
  v.name = StringField(j, "Name");
  v.driver = StringField(j, "Driver");
  v.mountpoint = StringField(j, "Mountpoint");
  v.created_at = StringField(j, "CreatedAt");
  if (auto it = j.find("Labels"); it != j.end()) v.labels = StringMap(*it);
  if (auto it = j.find("Options"); it != j.end()) v.options = StringMap(*it);
  return v;
}

StatusOr<json> ParseObject(const HttpResponse& resp, const char* operation) {
  json j = json::parse(resp.body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return InternalError(
        std::string(operation) + ": engine sent no JSON object: " + EngineMessage(resp.body),
        "engine_bad_response");
  }
  return j;
}

}  // namespace

StatusOr<VolumeInfo> VolumeClient::Create(
    const std::string& name, const std::map<std::string, std::string>& labels,
    const std::map<std::string, std::string>& driver_options) {
  CR_RETURN_IF_ERROR(CheckName(name));
  json body = {
      {"Name", name}, {"Driver", "local"}, {"Labels", labels}, {"DriverOpts", driver_options}};
  CR_ASSIGN_OR_RETURN(HttpResponse resp,
                      transport_.Do({"POST", "/volumes/create", body.dump(), timeout_}));
  // Docker 20.10 and Podman 4.3 both answer an existing name with the
  // existing volume (create is idempotent), so callers must use fresh
  // random names. Other Podman versions answer 500 "already exists".
  if (resp.status == 500 && EngineMessage(resp.body).find("already exists") != std::string::npos) {
    resp.status = 409;
  }
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "create volume", StatusCode::kAlreadyExists));
  CR_ASSIGN_OR_RETURN(json j, ParseObject(resp, "create volume"));
  return InfoFrom(j);
}

StatusOr<VolumeInfo> VolumeClient::Inspect(const std::string& name) {
  CR_RETURN_IF_ERROR(CheckName(name));
  CR_ASSIGN_OR_RETURN(HttpResponse resp, transport_.Do({"GET", "/volumes/" + name, "", timeout_}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "inspect volume"));
  CR_ASSIGN_OR_RETURN(json j, ParseObject(resp, "inspect volume"));
  return InfoFrom(j);
}

StatusOr<std::vector<VolumeInfo>> VolumeClient::List(
    const std::map<std::string, std::string>& labels) {
  CR_ASSIGN_OR_RETURN(HttpResponse resp,
                      transport_.Do({"GET", "/volumes?" + LabelFilterQuery(labels), "", timeout_}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "list volumes"));
  CR_ASSIGN_OR_RETURN(json j, ParseObject(resp, "list volumes"));
  std::vector<VolumeInfo> out;
  auto it = j.find("Volumes");
  if (it == j.end() || !it->is_array()) return out;  // Docker sends null for none.
  for (const json& v : *it) {
    if (v.is_object()) out.push_back(InfoFrom(v));
  }
  return out;
}

Status VolumeClient::Remove(const std::string& name) {
  CR_RETURN_IF_ERROR(CheckName(name));
  CR_ASSIGN_OR_RETURN(HttpResponse resp,
                      transport_.Do({"DELETE", "/volumes/" + name, "", timeout_}));
  if (resp.status == 404) return OkStatus();
  if (resp.status == 409 ||
      (resp.status == 500 && EngineMessage(resp.body).find("in use") != std::string::npos)) {
    return FailedPreconditionError("remove volume: " + EngineMessage(resp.body) + " (HTTP " +
                                       std::to_string(resp.status) + ")",
                                   kReasonVolumeInUse);
  }
  return StatusFromEngine(resp, "remove volume");
}

}  // namespace coderunner::engine
