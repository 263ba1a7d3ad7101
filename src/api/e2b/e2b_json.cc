#include "e2b/e2b_json.h"

#include <cmath>

#include "coderunner/common/base64.h"
#include "coderunner/wire/job_json.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;

constexpr int64_t kBytesPerMiB = 1024 * 1024;

const char* FileTypeName(sandboxes::EntryType type) {
  switch (type) {
    case sandboxes::EntryType::kFile:
      return "FILE_TYPE_FILE";
    case sandboxes::EntryType::kDirectory:
      return "FILE_TYPE_DIRECTORY";
    case sandboxes::EntryType::kSymlink:
      return "FILE_TYPE_SYMLINK";
    case sandboxes::EntryType::kOther:
      break;
  }
  return "FILE_TYPE_UNSPECIFIED";
}

json ProcessConfigJson(const sandboxes::ProcessConfig& config) {
  json out = {{"cmd", config.cmd}, {"args", config.args}, {"envs", config.envs}};
  if (!config.cwd.empty()) out["cwd"] = config.cwd;
  return out;
}

}  // namespace

json SandboxInfoJson(const sandboxes::SandboxRecord& record) {
  return {{"sandboxID", record.id},
          {"templateID", record.template_id.empty() ? record.language : record.template_id},
          {"alias", record.template_id.empty() ? record.language : record.template_id},
          {"clientID", "coderunner"},
          {"metadata", record.metadata},
          {"startedAt", wire::Rfc3339(record.created_at_ms)},
          {"endAt", wire::Rfc3339(record.expires_at_ms())},
          {"state", "running"},
          {"cpuCount", static_cast<int64_t>(std::ceil(record.limits.cpus))},
          {"memoryMB", record.limits.memory_bytes / kBytesPerMiB},
          {"diskSizeMB", record.home_bytes / kBytesPerMiB},
          {"envdVersion", kEnvdVersion}};
}

json SandboxCreatedJson(const sandboxes::SandboxRecord& record) {
  json out = SandboxInfoJson(record);
  out["envdAccessToken"] = record.access_token.empty() ? json(nullptr) : json(record.access_token);
  // The code interpreter's calls but runCode send only this one.
  out["trafficAccessToken"] = out["envdAccessToken"];
  out["domain"] = nullptr;
  return out;
}

json ControlErrorJson(int http_status, const Status& status) {
  return {{"code", http_status}, {"message", status.message()}, {"reason", status.reason()}};
}

json EntryJson(const sandboxes::EntryInfo& entry) {
  json out = {{"name", entry.name},
              {"type", FileTypeName(entry.type)},
              {"path", entry.path},
              {"size", entry.size},
              {"mode", entry.mode},
              {"permissions", entry.permissions},
              {"owner", entry.owner},
              {"group", entry.group},
              {"modifiedTime", wire::Rfc3339(entry.modified_ms)}};
  if (entry.type == sandboxes::EntryType::kSymlink) out["symlinkTarget"] = entry.symlink_target;
  return out;
}

json ProcessEventJson(const sandboxes::ProcessEvent& event) {
  using Kind = sandboxes::ProcessEvent::Kind;
  switch (event.kind) {
    case Kind::kStart:
      return {{"event", {{"start", {{"pid", event.pid}}}}}};
    case Kind::kStdout:
      return {{"event", {{"data", {{"stdout", Base64Encode(event.data)}}}}}};
    case Kind::kStderr:
      return {{"event", {{"data", {{"stderr", Base64Encode(event.data)}}}}}};
    case Kind::kKeepalive:
      return {{"event", {{"keepalive", json::object()}}}};
    case Kind::kEnd:
      break;
  }
  json end = {{"exitCode", event.exit_code}, {"exited", event.error.empty()}};
  end["status"] =
      event.error.empty() ? "exit status " + std::to_string(event.exit_code) : event.error;
  if (!event.error.empty() || event.exit_code != 0) end["error"] = end["status"];
  return {{"event", {{"end", end}}}};
}

json ProcessInfoJson(const sandboxes::ProcessInfo& info) {
  json out = {{"config", ProcessConfigJson(info.config)}, {"pid", info.pid}};
  if (info.config.tag) out["tag"] = *info.config.tag;
  return out;
}

StatusOr<sandboxes::ProcessConfig> ProcessConfigFromJson(const json& request) {
  if (!request.is_object() || !request.contains("process") || !request["process"].is_object()) {
    return InvalidArgumentError("process: an object with cmd is required");
  }
  const json& p = request["process"];
  sandboxes::ProcessConfig config;
  try {
    config.cmd = p.at("cmd").get<std::string>();
    if (p.contains("args")) config.args = p["args"].get<std::vector<std::string>>();
    if (p.contains("envs")) config.envs = p["envs"].get<std::map<std::string, std::string>>();
    if (p.contains("cwd") && !p["cwd"].is_null()) config.cwd = p["cwd"].get<std::string>();
    if (request.contains("tag") && !request["tag"].is_null()) {
      config.tag = request["tag"].get<std::string>();
    }
    if (request.contains("stdin") && !request["stdin"].is_null()) {
      config.stdin = request["stdin"].get<bool>();
    }
  } catch (const json::exception& e) {
    return InvalidArgumentError(std::string("process: ") + e.what());
  }
  if (config.cmd.empty()) return InvalidArgumentError("process.cmd must not be empty");
  if (request.contains("pty") && !request["pty"].is_null()) {
    return InvalidArgumentError("a pseudo-terminal (pty) is not available");
  }
  return config;
}

StatusOr<std::chrono::milliseconds> ConnectTimeoutOf(const std::string& header) {
  // Connect's own bound: at most 10 digits.
  constexpr size_t kMaxDigits = 10;
  if (header.empty()) return std::chrono::milliseconds(0);
  if (header.size() > kMaxDigits || header.find_first_not_of("0123456789") != std::string::npos) {
    return InvalidArgumentError("Connect-Timeout-Ms: a count of milliseconds, at most 10 digits");
  }
  return std::chrono::milliseconds(std::stoll(header));
}

StatusOr<Selector> SelectorFromJson(const json& selector) {
  Selector out;
  if (selector.is_object() && selector.contains("pid")) {
    const json& pid = selector["pid"];
    if (pid.is_number_integer() && pid.get<int64_t>() > 0) {
      out.pid = pid.get<int64_t>();
      return out;
    }
    if (pid.is_string()) {
      out.pid = std::atoll(pid.get<std::string>().c_str());
      if (out.pid > 0) return out;
    }
  }
  if (selector.is_object() && selector.contains("tag") && selector["tag"].is_string()) {
    out.tag = selector["tag"].get<std::string>();
    return out;
  }
  return InvalidArgumentError("process: a pid or a tag is required");
}

}  // namespace coderunner::api::e2b
