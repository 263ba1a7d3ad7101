#include "sandbox_requests.h"

#include <nlohmann/json.hpp>
#include <set>

#include "coderunner/common/bounded_json.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

Status BadSandboxField(const std::string& field, const std::string& why) {
  return InvalidArgumentError(field + ": " + why, "invalid_request");
}

// OK when `j` is an object of `known` fields only; else invalid_request
// naming what is not.
Status CheckObject(const json& j, const std::set<std::string>& known) {
  if (!j.is_object()) return BadSandboxField("body", "must be a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (known.count(it.key()) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return BadSandboxField(it.key(), "unknown field (known: " + list + ")");
    }
  }
  return OkStatus();
}

StatusOr<json> ParseSandboxBody(std::string_view body, int max_depth) {
  JsonBounds bounds;
  bounds.max_depth = max_depth;
  return ParseBoundedJson(body, bounds);
}

}  // namespace

StatusOr<sandboxes::SandboxCreateSpec> ParseSandboxCreate(std::string_view body,
                                                          const config::Config& config,
                                                          const config::TierConfig& tier,
                                                          std::string id) {
  CR_ASSIGN_OR_RETURN(json j,
                      ParseSandboxBody(body.empty() ? "{}" : body, config.server.max_json_depth));
  return SandboxCreateFromJson(j, config, tier, std::move(id));
}

StatusOr<sandboxes::SandboxCreateSpec> SandboxCreateFromJson(const json& j,
                                                             const config::Config& config,
                                                             const config::TierConfig& tier,
                                                             std::string id) {
  CR_RETURN_IF_ERROR(CheckObject(j, {"language", "ttl_s", "limits", "volume_id", "network"}));
  sandboxes::SandboxCreateSpec out;
  out.ttl_s = tier.sandbox_ttl_s;
  if (auto it = j.find("ttl_s"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer()) return BadSandboxField("ttl_s", "must be an integer (seconds)");
    out.ttl_s = it->get<int64_t>();
    if (out.ttl_s < 1) return BadSandboxField("ttl_s", "must be at least 1");
    if (out.ttl_s > tier.max_sandbox_ttl_s) {
      return FailedPreconditionError("ttl_s " + std::to_string(out.ttl_s) +
                                         " exceeds the maximum of tier " + tier.name + " (" +
                                         std::to_string(tier.max_sandbox_ttl_s) + " s)",
                                     "limit_exceeded");
    }
  }
  // The rest is a job's language, limits, volume and network: validated
  // the same way.
  json as_job = {{"code", ""}};
  for (const char* key : {"language", "limits", "volume_id", "network"}) {
    if (auto it = j.find(key); it != j.end()) as_job[key] = *it;
  }
  CR_ASSIGN_OR_RETURN(wire::ExecuteRequest req,
                      wire::ExecuteRequestFromJson(as_job, wire::CapsFromConfig(config)));
  CR_ASSIGN_OR_RETURN(out.spec, wire::BuildJobSpec(req, config, std::move(id), &tier));
  return out;
}

StatusOr<sandboxes::SandboxCallSpec> ParseSandboxExecute(std::string_view body,
                                                         const wire::RequestCaps& caps) {
  CR_ASSIGN_OR_RETURN(json j, ParseSandboxBody(body, caps.max_json_depth));
  return SandboxExecuteFromJson(j, caps);
}

StatusOr<sandboxes::SandboxCallSpec> SandboxExecuteFromJson(const json& j,
                                                            const wire::RequestCaps& caps) {
  CR_RETURN_IF_ERROR(CheckObject(j, {"code", "files", "timeout_ms"}));
  sandboxes::SandboxCallSpec out;
  if (auto it = j.find("timeout_ms"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer()) return BadSandboxField("timeout_ms", "must be an integer (ms)");
    out.timeout_ms = it->get<int64_t>();
    if (*out.timeout_ms < 1) return BadSandboxField("timeout_ms", "must be at least 1");
  }
  json as_job = {{"code", j.contains("code") ? j.at("code") : json(nullptr)}};
  if (auto it = j.find("files"); it != j.end()) as_job["files"] = *it;
  CR_ASSIGN_OR_RETURN(wire::ExecuteRequest req, wire::ExecuteRequestFromJson(as_job, caps));
  out.code = std::move(req.code);
  out.files = std::move(req.files);
  return out;
}

}  // namespace coderunner::api
