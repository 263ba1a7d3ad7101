#include "sandbox_fusion.h"

#include <utility>

#include "coderunner/common/base64.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/wire/result_json.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// SandboxFusion's language names served here, and coderunner's.
constexpr std::pair<const char*, const char*> kFusionLanguages[] = {
    {"python", "python"}, {"cpp", "cpp"},   {"nodejs", "javascript"},     {"go", "go"},
    {"java", "java"},     {"bash", "bash"}, {"typescript", "typescript"}, {"rust", "rust"},
};
// SandboxFusion's default run_timeout, in seconds.
constexpr double kDefaultRunTimeoutS = 10;

Status BadFusionField(const std::string& field, const std::string& why) {
  return InvalidArgumentError(field + ": " + why, kReasonSandboxFusionInvalid);
}

StatusOr<json> FusionFiles(const json& files) {
  if (!files.is_object()) return BadFusionField("files", "must be an object");
  json out = json::array();
  for (auto it = files.begin(); it != files.end(); ++it) {
    if (it->is_null()) {
      out.push_back({{"path", it.key()}, {"content", ""}});
      continue;
    }
    if (!it->is_string() || !Base64Decode(it->get<std::string>()).ok()) {
      return BadFusionField("files", it.key() + " is not base64");
    }
    out.push_back({{"path", it.key()}, {"content", *it}, {"encoding", "base64"}});
  }
  return out;
}

// The return code SandboxFusion's subprocess reports: -N after signal N.
json ReturnCode(const json& r, const char* signal_field, const char* code_field) {
  const json signal = r.value(signal_field, json());
  const int number = signal.is_string() ? wire::SignalNumber(signal.get<std::string>()) : 0;
  return number > 0 ? json(-number) : r.value(code_field, json());
}

json FusionSeconds(const json& metrics, const char* field) {
  if (!metrics.is_object()) return nullptr;
  return static_cast<double>(metrics.value(field, 0LL)) / 1000.0;
}

}  // namespace

json SandboxFusionInvalidJson(const Status& status) {
  const std::string& m = status.message();
  size_t colon = m.find(": ");
  std::string field = colon == std::string::npos ? "body" : m.substr(0, colon);
  std::string why = colon == std::string::npos ? m : m.substr(colon + 2);
  return {{"detail",
           json::array(
               {{{"type", "value_error"}, {"loc", json::array({"body", field})}, {"msg", why}}})}};
}

StatusOr<json> SandboxFusionToJob(const json& request, const config::Config& config) {
  if (!request.is_object()) return BadFusionField("body", "must be a JSON object");
  auto code = request.find("code");
  if (code == request.end() || !code->is_string())
    return BadFusionField("code", "a string is required");
  auto language = request.find("language");
  if (language == request.end() || !language->is_string()) {
    return BadFusionField("language", "a string is required");
  }
  const char* ours = nullptr;
  for (const auto& [theirs, name] : kFusionLanguages) {
    if (*language == theirs && config.FindLanguage(name) != nullptr) ours = name;
  }
  if (ours == nullptr) {
    return BadFusionField("language", "language " + language->dump() + " is not served here");
  }
  json job = {{"language", ours}, {"code", *code}};
  if (auto in = request.find("stdin"); in != request.end() && !in->is_null()) {
    if (!in->is_string()) return BadFusionField("stdin", "must be a string");
    job["stdin"] = *in;
  }
  if (auto files = request.find("files"); files != request.end() && !files->is_null()) {
    CR_ASSIGN_OR_RETURN(json list, FusionFiles(*files));
    if (!list.empty()) job["files"] = std::move(list);
  }
  if (auto fetch = request.find("fetch_files");
      fetch != request.end() && !(fetch->is_array() && fetch->empty()) && !fetch->is_null()) {
    return BadFusionField("fetch_files",
                          "is not available here (the job's directory is "
                          "read-only; write to /output and read its artifacts)");
  }
  double run_timeout = kDefaultRunTimeoutS;
  if (auto t = request.find("run_timeout"); t != request.end() && !t->is_null()) {
    if (!t->is_number() || t->get<double>() <= 0) {
      return BadFusionField("run_timeout", "must be a number above 0");
    }
    run_timeout = t->get<double>();
  }
  json limits = {{"timeout_ms", static_cast<int64_t>(run_timeout * 1000 + 0.5)}};
  if (auto m = request.find("memory_limit_MB"); m != request.end() && !m->is_null()) {
    if (!m->is_number_integer()) return BadFusionField("memory_limit_MB", "must be an integer");
    if (m->get<int64_t>() > 0) limits["memory_bytes"] = m->get<int64_t>() << 20;
  }
  job["limits"] = std::move(limits);
  return job;
}

json SandboxFusionResponse(const json& result) {
  const std::string status = result.value("status", "error");
  const json& error = result.contains("error") ? result["error"] : json();
  const bool unbuilt =
      error.is_object() && error.value("code", "") == isolation::kReasonCompileError;
  json out = {{"status", "Success"},          {"message", ""},
              {"compile_result", nullptr},    {"run_result", nullptr},
              {"executor_pod_name", nullptr}, {"files", json::object()}};
  if (result.contains("compile") && result["compile"].is_object()) {
    const json& c = result["compile"];
    const bool timed_out = c.value("status", "") == "timeout";
    out["compile_result"] = {
        {"status", timed_out ? "TimeLimitExceeded" : "Finished"},
        {"execution_time", FusionSeconds(c.value("metrics", json()), "run_ms")},
        {"return_code", timed_out ? json(nullptr) : ReturnCode(c, "signal", "exit_code")},
        {"stdout", ""},
        {"stderr", c.value("output", "")}};
  }
  if (status == "error" || status == "cancelled") {
    out["status"] = "SandboxError";
    out["message"] = error.is_object() ? error.value("message", status) : status;
    return out;
  }
  if (unbuilt) {
    out["status"] = "Failed";
    return out;
  }
  const bool timed_out = status == "timeout";
  out["run_result"] = {
      {"status", timed_out ? "TimeLimitExceeded" : "Finished"},
      {"execution_time", FusionSeconds(result.value("metrics", json()), "run_ms")},
      {"return_code", timed_out ? json(nullptr) : ReturnCode(result, "signal", "exit_code")},
      {"stdout", result.value("stdout", "")},
      {"stderr", result.value("stderr", "")}};
  if (status == "oom") out["run_result"]["return_code"] = -9;  // The kernel's SIGKILL.
  if (status != "succeeded") out["status"] = "Failed";
  return out;
}

}  // namespace coderunner::api
