#include "coderunner/wire/execute_request.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "coderunner/common/base64.h"
#include "coderunner/isolation/file_path.h"
#include "coderunner/isolation/mechanism.h"
#include "coderunner/packages/package_policy.h"
#include "coderunner/wire/egress_request.h"

namespace coderunner::wire {
namespace {

using nlohmann::json;

Status Bad(const std::string& field, const std::string& why) {
  return InvalidArgumentError(field + ": " + why, "invalid_request");
}

Status CheckKnown(const json& obj, const std::string& where, const std::set<std::string>& known) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (known.count(it.key()) == 0) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return Bad(where + it.key(), "unknown field (known: " + list + ")");
    }
  }
  return OkStatus();
}

Status GetString(const json& obj, const char* key, const std::string& where, std::string* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return OkStatus();
  if (!it->is_string()) return Bad(where + key, "must be a string");
  *out = it->get<std::string>();
  return OkStatus();
}

Status GetLimit(const json& limits, const char* key, std::optional<int64_t>* out) {
  auto it = limits.find(key);
  if (it == limits.end() || it->is_null()) return OkStatus();
  if (!it->is_number_integer()) return Bad(std::string("limits.") + key, "must be an integer");
  *out = it->get<int64_t>();
  return OkStatus();
}

Status ParseFiles(const json& files, const RequestCaps& caps, ExecuteRequest* req) {
  if (!files.is_array()) return Bad("files", "must be an array");
  if (static_cast<int>(files.size()) > caps.max_files) {
    return Bad("files", "more than " + std::to_string(caps.max_files) + " entries");
  }
  std::set<std::string> seen;
  int64_t total = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    std::string where = "files[" + std::to_string(i) + "].";
    const json& f = files[i];
    if (!f.is_object()) return Bad("files[" + std::to_string(i) + "]", "must be an object");
    CR_RETURN_IF_ERROR(CheckKnown(f, where, {"path", "content", "encoding"}));
    isolation::InputFile file;
    std::string encoding = "utf8";
    CR_RETURN_IF_ERROR(GetString(f, "path", where, &file.path));
    CR_RETURN_IF_ERROR(GetString(f, "content", where, &file.content));
    CR_RETURN_IF_ERROR(GetString(f, "encoding", where, &encoding));
    if (file.path.empty()) return Bad(where + "path", "is required");
    auto parts = isolation::SplitSafeRelativePath(file.path, caps.max_file_depth);
    if (!parts.ok()) return parts.status().WithContext(where + "path");
    if (isolation::IsReservedPath(file.path)) {
      return InvalidArgumentError(where + "path: '" + file.path + "' uses a reserved name",
                                  "invalid_path");
    }
    if (encoding == "base64") {
      auto decoded = Base64Decode(file.content);
      if (!decoded.ok()) return Bad(where + "content", decoded.status().message());
      file.content = std::move(*decoded);
    } else if (encoding != "utf8") {
      return Bad(where + "encoding", "must be \"utf8\" or \"base64\"");
    }
    if (!seen.insert(file.path).second) return Bad(where + "path", "duplicate path " + file.path);
    total += static_cast<int64_t>(file.content.size());
    if (total > caps.max_files_bytes) {
      return Bad("files", "more than " + std::to_string(caps.max_files_bytes) + " bytes in total");
    }
    req->files.push_back(std::move(file));
  }
  // A path may not be both a file and a directory holding another file.
  for (const auto& f : req->files) {
    for (size_t slash = f.path.find('/'); slash != std::string::npos;
         slash = f.path.find('/', slash + 1)) {
      if (seen.count(f.path.substr(0, slash)) != 0) {
        return InvalidArgumentError("files: '" + f.path.substr(0, slash) +
                                        "' is both a file and a directory of '" + f.path + "'",
                                    "invalid_path");
      }
    }
  }
  return OkStatus();
}

// One ecosystem's list of "packages": strings.
Status ParsePackageList(const json& packages, const char* key, std::vector<std::string>* out) {
  auto list = packages.find(key);
  if (list == packages.end() || list->is_null()) return OkStatus();
  const std::string field = std::string("packages.") + key;
  if (!list->is_array()) return Bad(field, "must be an array of strings");
  for (const auto& entry : *list) {
    if (!entry.is_string()) return Bad(field, "must be an array of strings");
    out->push_back(entry.get<std::string>());
  }
  return OkStatus();
}

// "packages": {"python": ["name==version", ...]} or {"npm": ["name@range",
// ...]}: one ecosystem per job (its layer is one tree). The entries are
// checked against the policy where the job is built (BuildJobSpec).
Status ParsePackages(const json& packages, ExecuteRequest* req) {
  if (!packages.is_object()) return Bad("packages", "must be an object");
  CR_RETURN_IF_ERROR(CheckKnown(packages, "packages.", {"python", "npm"}));
  CR_RETURN_IF_ERROR(ParsePackageList(packages, "python", &req->python_packages));
  CR_RETURN_IF_ERROR(ParsePackageList(packages, "npm", &req->npm_packages));
  if (!req->python_packages.empty() && !req->npm_packages.empty()) {
    return Bad("packages", "names packages of one ecosystem per job: python or npm");
  }
  return OkStatus();
}

// "network": "none" (the default) or "allowlist"; a judged program runs
// without (its cases run in one container, one after another).
Status ParseNetwork(const json& body, ExecuteRequest* req) {
  std::string network = "none";
  CR_RETURN_IF_ERROR(GetString(body, "network", "", &network));
  if (network != "none" && network != "allowlist") {
    return Bad("network", "must be \"none\" or \"allowlist\"");
  }
  req->network_allowlist = network == "allowlist";
  if (req->network_allowlist && req->judge) {
    return Bad("network", "a judged program runs without a network (\"cases\")");
  }
  return OkStatus();
}

StatusOr<ExecuteRequest> FromJson(const json& body, const RequestCaps& caps) {
  if (!body.is_object()) return Bad("body", "must be a JSON object");
  CR_RETURN_IF_ERROR(CheckKnown(
      body, "",
      {"language", "code", "stdin", "args", "files", "limits", "output_encoding", "inputs",
       "volume_id", "cases", "compare", "stop_at_first_failure", "packages", "network"}));
  ExecuteRequest req;
  auto code = body.find("code");
  if (code == body.end() || code->is_null()) return Bad("code", "is required");
  if (!code->is_string()) return Bad("code", "must be a string");
  req.code = code->get<std::string>();
  std::string language;
  CR_RETURN_IF_ERROR(GetString(body, "language", "", &language));
  if (!language.empty()) req.language = language;
  CR_RETURN_IF_ERROR(GetString(body, "stdin", "", &req.stdin_data));
  if (auto args = body.find("args"); args != body.end() && !args->is_null()) {
    if (!args->is_array()) return Bad("args", "must be an array of strings");
    if (static_cast<int>(args->size()) > caps.max_args) {
      return Bad("args", "more than " + std::to_string(caps.max_args) + " entries");
    }
    for (const auto& a : *args) {
      if (!a.is_string()) return Bad("args", "must be an array of strings");
      std::string s = a.get<std::string>();
      // execve cannot carry a NUL inside an argument.
      if (s.find('\0') != std::string::npos) return Bad("args", "an argument contains a NUL byte");
      req.args.push_back(std::move(s));
    }
  }
  if (auto files = body.find("files"); files != body.end() && !files->is_null()) {
    CR_RETURN_IF_ERROR(ParseFiles(*files, caps, &req));
  }
  if (auto limits = body.find("limits"); limits != body.end() && !limits->is_null()) {
    if (!limits->is_object()) return Bad("limits", "must be an object");
    CR_RETURN_IF_ERROR(CheckKnown(
        *limits, "limits.",
        {"timeout_ms", "cpu_ms", "memory_bytes", "pids", "output_bytes", "tmp_bytes", "cpus"}));
    CR_RETURN_IF_ERROR(GetLimit(*limits, "timeout_ms", &req.limits.timeout_ms));
    CR_RETURN_IF_ERROR(GetLimit(*limits, "cpu_ms", &req.limits.cpu_ms));
    CR_RETURN_IF_ERROR(GetLimit(*limits, "memory_bytes", &req.limits.memory_bytes));
    CR_RETURN_IF_ERROR(GetLimit(*limits, "pids", &req.limits.pids));
    CR_RETURN_IF_ERROR(GetLimit(*limits, "output_bytes", &req.limits.output_bytes));
    CR_RETURN_IF_ERROR(GetLimit(*limits, "tmp_bytes", &req.limits.tmp_bytes));
    if (auto cpus = limits->find("cpus"); cpus != limits->end() && !cpus->is_null()) {
      if (!cpus->is_number()) return Bad("limits.cpus", "must be a number");
      req.limits.cpus = cpus->get<double>();
    }
  }
  if (auto inputs = body.find("inputs"); inputs != body.end() && !inputs->is_null()) {
    req.inputs_json = inputs->dump();
    if (static_cast<int64_t>(req.inputs_json.size()) > caps.max_inputs_bytes) {
      return Bad("inputs", "larger than " + std::to_string(caps.max_inputs_bytes) + " bytes");
    }
    for (const auto& f : req.files) {
      if (f.path == kParamsFile) {
        return InvalidArgumentError(
            "files: 'params.json' is reserved for \"inputs\" when inputs are given",
            "invalid_path");
      }
    }
  }
  CR_RETURN_IF_ERROR(GetString(body, "volume_id", "", &req.volume_id));
  if (auto packages = body.find("packages"); packages != body.end() && !packages->is_null()) {
    CR_RETURN_IF_ERROR(ParsePackages(*packages, &req));
  }
  std::string encoding = "utf8";
  CR_RETURN_IF_ERROR(GetString(body, "output_encoding", "", &encoding));
  if (encoding == "base64") {
    req.output_encoding = OutputEncoding::kBase64;
  } else if (encoding != "utf8") {
    return Bad("output_encoding", "must be \"utf8\" or \"base64\"");
  }
  CR_ASSIGN_OR_RETURN(req.judge, ParseJudgeFields(body, caps));
  CR_RETURN_IF_ERROR(ParseNetwork(body, &req));
  if (req.judge && !req.volume_id.empty()) {
    return Bad("cases", "a judged program runs without a volume (\"volume_id\")");
  }
  return req;
}

}  // namespace

StatusOr<ExecuteRequest> ParseExecuteRequest(std::string_view body, const RequestCaps& caps) {
  JsonBounds bounds;
  bounds.max_depth = caps.max_json_depth;
  CR_ASSIGN_OR_RETURN(json parsed, ParseBoundedJson(body, bounds));
  return ExecuteRequestFromJson(parsed, caps);
}

StatusOr<ExecuteRequest> ExecuteRequestFromJson(const json& body, const RequestCaps& caps) {
  // FromJson checks every type before reading, but nlohmann's accessors are
  // this module's boundary: convert anything they throw.
  try {
    return FromJson(body, caps);
  } catch (const json::exception& e) {
    return InvalidArgumentError(std::string("bad request: ") + e.what(), "invalid_request");
  }
}

RequestCaps CapsFromConfig(const config::Config& config) {
  RequestCaps caps;
  caps.max_files = config.files.max_count;
  caps.max_file_depth = config.files.max_depth;
  caps.max_files_bytes = config.files.max_total_bytes;
  caps.max_inputs_bytes = config.files.max_inputs_bytes;
  caps.max_json_depth = config.server.max_json_depth;
  return caps;
}

StatusOr<isolation::JobSpec> BuildJobSpec(const ExecuteRequest& request,
                                          const config::Config& config, std::string job_id,
                                          const config::TierConfig* tier, config::LimitsUse use) {
  const isolation::LanguageSpec* lang =
      request.language ? config.FindLanguage(*request.language) : &config.DefaultLanguage();
  if (lang == nullptr) {
    std::string known;
    for (const auto& l : config.languages) known += (known.empty() ? "" : ", ") + l.name;
    return InvalidArgumentError("unknown language '" + *request.language + "'; known: " + known,
                                "unknown_language");
  }
  for (const auto& f : request.files) {
    if (f.path == lang->file || f.path.rfind(lang->file + "/", 0) == 0) {
      return InvalidArgumentError("file path '" + f.path + "' collides with the program file",
                                  "invalid_path");
    }
  }
  config::LimitBounds bounds = config::TierLimitBounds(config, tier, use);
  auto resolved = isolation::ResolveLimits(bounds.defaults, bounds.max, request.limits);
  if (!resolved.ok()) {
    if (tier == nullptr) return resolved.status();
    return resolved.status().WithContext("tier " + tier->name);
  }
  isolation::Limits limits = *resolved;
  isolation::JobSpec job;
  job.id = std::move(job_id);
  job.language = *lang;
  job.code = request.code;
  job.stdin_data = request.stdin_data;
  job.args = request.args;
  job.files = request.files;
  if (!request.inputs_json.empty()) job.files.push_back({kParamsFile, request.inputs_json});
  job.limits = limits;
  job.volume.id = request.volume_id;
  // The most specific choice wins: the tenant's tier (what the tenant pays
  // for), then the language (what the image needs); "" leaves it to
  // sandbox.runtime.
  job.runtime = tier != nullptr && !tier->runtime.empty() ? tier->runtime : lang->runtime;
  CR_ASSIGN_OR_RETURN(std::vector<packages::Requirement> python,
                      packages::CheckPackageRequest(packages::Ecosystem::kPython,
                                                    request.python_packages, config, tier));
  for (const auto& r : python) job.python_packages.push_back(r.Text());
  CR_ASSIGN_OR_RETURN(
      std::vector<packages::Requirement> npm,
      packages::CheckPackageRequest(packages::Ecosystem::kNpm, request.npm_packages, config, tier));
  for (const auto& r : npm) job.npm_packages.push_back(r.Text());
  CR_ASSIGN_OR_RETURN(job.egress,
                      EgressPolicyOf(request.network_allowlist, config, tier, job.runtime));
  // npm's packages are found through the workspace's node_modules, which
  // is the layer's: no request file may be there.
  for (const auto& f : job.files) {
    if (!npm.empty() && (f.path == isolation::kNodeModulesLink ||
                         f.path.rfind(std::string(isolation::kNodeModulesLink) + "/", 0) == 0)) {
      return InvalidArgumentError("files: '" + f.path + "' is where a job's npm packages are",
                                  "invalid_path");
    }
  }
  return job;
}

std::vector<isolation::JobSpec> DefaultJobShapes(const config::Config& config) {
  std::vector<isolation::JobSpec> out;
  const config::TierConfig* tier =
      config.auth.mode == "none" ? config.FindTier(config.auth.none_tier) : nullptr;
  for (const auto& l : config.languages) {
    ExecuteRequest r;
    r.language = l.name;
    auto spec = BuildJobSpec(r, config, "job-template", tier);
    if (spec.ok()) out.push_back(std::move(*spec));
  }
  return out;
}

}  // namespace coderunner::wire
