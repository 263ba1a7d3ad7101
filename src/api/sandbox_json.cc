#include "sandbox_json.h"

#include "coderunner/common/utf8.h"
#include "coderunner/wire/job_json.h"
#include "coderunner/wire/result_json.h"

namespace coderunner::api {

using nlohmann::json;

json SandboxJson(const sandboxes::SandboxRecord& r) {
  const isolation::Limits& l = r.limits;
  json j = {{"id", r.id},
            {"state", sandboxes::StateName(r.state)},
            {"language", r.language},
            {"created_at", wire::Rfc3339(r.created_at_ms)},
            {"last_used_at", wire::Rfc3339(r.last_used_at_ms)},
            {"ttl_s", r.ttl_s},
            {"expires_at", wire::Rfc3339(r.expires_at_ms())},
            {"limits",
             {{"timeout_ms", l.timeout_ms},
              {"memory_bytes", l.memory_bytes},
              {"pids", l.pids},
              {"output_bytes", l.output_bytes},
              {"tmp_bytes", l.tmp_bytes},
              {"cpus", l.cpus}}},
            {"executions", r.executions},
            {"restarts", r.restarts},
            {"usage",
             {{"cpu_ms", r.cpu_ms_total},
              {"memory_peak_bytes",
               r.memory_peak_bytes < 0 ? json(nullptr) : json(r.memory_peak_bytes)}}}};
  if (!r.runtime.empty()) j["runtime"] = r.runtime;
  if (!r.packages.empty()) j["packages"] = r.packages;
  if (r.network_allowlist) j["network"] = "allowlist";
  if (r.state != sandboxes::SandboxState::kRunning) {
    j["ended_at"] = wire::Rfc3339(r.ended_at_ms);
    if (!r.stopped_reason.empty()) j["reason"] = r.stopped_reason;
  }
  return j;
}

json FilesJson(const std::vector<isolation::Artifact>& files) {
  json out = json::array();
  for (const auto& f : files)
    out.push_back(
        {{"path", f.path}, {"size", f.size}, {"disk_bytes", f.disk_bytes}, {"sha256", f.sha256}});
  return out;
}

// A notebook's view of the results: each format keyed by its name.
json ResultsJson(const sandboxes::CellRecords& cell) {
  json out = json::array();
  for (const auto& result : cell.results) {
    json one = {{"is_main_result", result.is_main_result}};
    for (const auto& [format, data] : result.formats) one[format] = data;
    out.push_back(std::move(one));
  }
  return out;
}

json CallJson(const sandboxes::ExecuteOutcome& o) {
  const sandboxes::CallResult& r = o.result;
  json j = {{"sandbox_id", o.record.id},
            {"status", isolation::RunStatusName(r.status)},
            {"exit_code", r.exit_code < 0 ? json(nullptr) : json(r.exit_code)},
            {"stdout", SanitizeUtf8(r.stdout_data)},
            {"stderr", SanitizeUtf8(r.stderr_data)},
            {"stdout_truncated", r.stdout_truncated},
            {"stderr_truncated", r.stderr_truncated},
            {"state_lost", r.state_lost},
            {"results", ResultsJson(r.cell)},
            {"files", FilesJson(o.files)},
            {"metrics",
             {{"wall_ms", r.wall_ms},
              {"run_ms", r.run_ms},
              {"cpu_ms", r.cpu_ms < 0 ? json(nullptr) : json(r.cpu_ms)},
              {"memory_peak_bytes",
               r.memory_peak_bytes < 0 ? json(nullptr) : json(r.memory_peak_bytes)}}},
            {"executions", o.record.executions},
            {"expires_at", wire::Rfc3339(o.record.expires_at_ms())}};
  if (!r.error.ok()) {
    j["error"] = {{"code", r.error.reason()}, {"message", r.error.message()}};
  }
  if (o.egress) j["egress"] = wire::EgressToJson(*o.egress);
  if (r.cell.error) {
    j["exception"] = {{"name", r.cell.error->name},
                      {"value", r.cell.error->value},
                      {"traceback", r.cell.error->traceback}};
  }
  if (r.output_reset) {
    j["output_reset"] = true;
    j["notice"] = "/output broke one of its bounds (bytes, files or depth) and was emptied";
  }
  if (r.state_lost) {
    j["notice"] =
        "the sandbox's container was replaced: variables, imports and /tmp from earlier "
        "calls are gone (files under /output remain)";
  }
  return j;
}

}  // namespace coderunner::api
