#include "coderunner/wire/result_json.h"

#include <signal.h>

#include <string_view>

#include "coderunner/common/base64.h"
#include "coderunner/common/sha256.h"
#include "coderunner/common/utf8.h"

namespace coderunner::wire {

std::string SignalName(int sig) {
  switch (sig) {
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGSYS:
      return "SIGSYS";
    default:
      return "SIG" + std::to_string(sig);
  }
}

int SignalNumber(std::string_view name) {
  // The largest signal number SignalName names ("SIG<n>" up to it).
  constexpr int kLastSignal = 127;
  for (int n = 1; n <= kLastSignal; ++n) {
    if (SignalName(n) == name) return n;
  }
  return 0;
}

nlohmann::json MetricsJson(const isolation::RunMetrics& m) {
  return {{"wall_ms", m.wall_ms},
          {"run_ms", m.run_ms},
          {"cpu_ms", m.cpu_ms},
          {"memory_peak_bytes", m.memory_peak_bytes}};
}

std::string RenderOutput(const std::string& bytes, bool truncated, OutputEncoding encoding) {
  if (encoding == OutputEncoding::kBase64) return Base64Encode(bytes);
  // A cap may have cut a character in half; drop the partial tail rather
  // than invent a replacement character the program never printed.
  std::string_view v(bytes);
  if (truncated) v = v.substr(0, CompleteUtf8Prefix(v));
  return SanitizeUtf8(v);
}

nlohmann::json EgressToJson(const egress::EgressLog& log) {
  nlohmann::json requests = nlohmann::json::array();
  for (const auto& r : log.requests) {
    nlohmann::json one = {
        {"method", r.method},          {"host", r.host},         {"port", r.port},
        {"bytes_out", r.bytes_out},    {"bytes_in", r.bytes_in}, {"outcome", r.outcome},
        {"duration_ms", r.duration_ms}};
    if (!r.address.empty()) one["address"] = r.address;
    if (!r.detail.empty()) one["detail"] = r.detail;
    requests.push_back(std::move(one));
  }
  return {{"requests", std::move(requests)}, {"dropped", log.dropped}, {"bytes", log.bytes}};
}

namespace {

// A compiled language's compile step, as the result shows it.
template <typename Render>
nlohmann::json CompileToJson(const isolation::CompileOutcome& c, const Render& render) {
  bool ended = c.status != isolation::RunStatus::kError &&
               c.status != isolation::RunStatus::kCancelled &&
               c.status != isolation::RunStatus::kTimeout && c.status != isolation::RunStatus::kOom;
  return {{"status", isolation::RunStatusName(c.status)},
          {"exit_code", ended ? nlohmann::json(c.exit_code) : nlohmann::json(nullptr)},
          {"signal",
           ended && c.signal > 0 ? nlohmann::json(SignalName(c.signal)) : nlohmann::json(nullptr)},
          {"output", render(c.output, c.output_truncated)},
          {"output_truncated", c.output_truncated},
          {"metrics", MetricsJson(c.metrics)}};
}

}  // namespace

nlohmann::json ResultToJson(const isolation::JobSpec& job, const isolation::RunResult& r,
                            OutputEncoding encoding) {
  auto render = [&](const std::string& bytes, bool truncated) {
    return RenderOutput(bytes, truncated, encoding);
  };
  nlohmann::json j;
  j["id"] = job.id;
  j["status"] = isolation::RunStatusName(r.status);
  bool built = !r.compile || r.compile->status == isolation::RunStatus::kSucceeded;
  bool ran = built && r.status != isolation::RunStatus::kError &&
             r.status != isolation::RunStatus::kCancelled;
  j["exit_code"] = ran ? nlohmann::json(r.exit_code) : nlohmann::json(nullptr);
  j["signal"] =
      ran && r.signal > 0 ? nlohmann::json(SignalName(r.signal)) : nlohmann::json(nullptr);
  j["stdout"] = render(r.stdout_data, r.stdout_truncated);
  j["stderr"] = render(r.stderr_data, r.stderr_truncated);
  j["stdout_truncated"] = r.stdout_truncated;
  j["stderr_truncated"] = r.stderr_truncated;
  if (r.output_lost) j["output_lost"] = true;
  j["output_encoding"] = encoding == OutputEncoding::kBase64 ? "base64" : "utf8";
  j["language"] = job.language.name;
  j["image"] = r.image;
  j["image_digest"] =
      r.image_digest.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.image_digest);
  j["code_sha256"] = Sha256Hex(job.code);
  // Only a host process says how it ran; a container's result has no field.
  if (!r.runtime.empty()) j["runtime"] = r.runtime;
  j["metrics"] = MetricsJson(r.metrics);
  j["limits"] = {{"timeout_ms", job.limits.timeout_ms},
                 {"cpu_ms", job.limits.cpu_ms},
                 {"memory_bytes", job.limits.memory_bytes},
                 {"pids", job.limits.pids},
                 {"output_bytes", job.limits.output_bytes},
                 {"tmp_bytes", job.limits.tmp_bytes},
                 {"cpus", job.limits.cpus}};
  nlohmann::json artifacts = nlohmann::json::array();
  for (const auto& a : r.artifacts) {
    artifacts.push_back(
        {{"path", a.path}, {"size", a.size}, {"disk_bytes", a.disk_bytes}, {"sha256", a.sha256}});
  }
  j["artifacts"] = std::move(artifacts);
  if (!r.artifacts_skipped.empty()) {
    nlohmann::json skipped = nlohmann::json::array();
    for (const auto& p : r.artifacts_skipped) {
      skipped.push_back({{"path", p.path}, {"reason", p.reason}});
    }
    j["artifacts_skipped"] = std::move(skipped);
  }
  if (!job.volume.id.empty()) {
    j["volume"] = {{"id", job.volume.id},
                   {"used_bytes", r.output_bytes >= 0 ? nlohmann::json(r.output_bytes)
                                                      : nlohmann::json(nullptr)}};
  }
  if (r.compile) j["compile"] = CompileToJson(*r.compile, render);
  if (r.egress) j["egress"] = EgressToJson(*r.egress);
  if (r.status == isolation::RunStatus::kError || !r.error.ok()) {
    j["error"] = {{"code", r.error.reason()}, {"message", r.error.message()}};
  } else {
    j["error"] = nullptr;
  }
  return j;
}

}  // namespace coderunner::wire
