#include "coderunner/sandboxes/sandbox_record.h"

namespace coderunner::sandboxes {

using nlohmann::json;

std::string_view StateName(SandboxState state) {
  switch (state) {
    case SandboxState::kRunning:
      return "running";
    case SandboxState::kStopped:
      return "stopped";
    case SandboxState::kExpired:
      return "expired";
  }
  return "stopped";
}

std::optional<SandboxState> ParseState(std::string_view name) {
  for (SandboxState s : {SandboxState::kRunning, SandboxState::kStopped, SandboxState::kExpired}) {
    if (StateName(s) == name) return s;
  }
  return std::nullopt;
}

json RecordToJson(const SandboxRecord& r) {
  const isolation::Limits& l = r.limits;
  return {{"id", r.id},
          {"tenant", r.tenant},
          {"language", r.language},
          {"state", StateName(r.state)},
          {"created_at_ms", r.created_at_ms},
          {"last_used_at_ms", r.last_used_at_ms},
          {"ttl_s", r.ttl_s},
          {"ended_at_ms", r.ended_at_ms},
          {"limits",
           {{"timeout_ms", l.timeout_ms},
            {"cpu_ms", l.cpu_ms},
            {"memory_bytes", l.memory_bytes},
            {"pids", l.pids},
            {"output_bytes", l.output_bytes},
            {"tmp_bytes", l.tmp_bytes},
            {"cpus", l.cpus}}},
          {"runtime", r.runtime},
          {"volume_id", r.volume_id},
          {"container_id", r.container_id},
          {"executions", r.executions},
          {"restarts", r.restarts},
          {"cpu_ms_total", r.cpu_ms_total},
          {"memory_peak_bytes", r.memory_peak_bytes},
          {"stopped_reason", r.stopped_reason},
          {"home_bytes", r.home_bytes},
          {"template_id", r.template_id},
          {"metadata", r.metadata},
          {"envs", r.envs},
          {"access_token", r.access_token},
          {"tier", r.tier},
          {"packages", r.packages},
          {"package_layer", r.package_layer},
          {"network", r.network_allowlist ? "allowlist" : "none"}};
}

StatusOr<SandboxRecord> RecordFromJson(const json& j) {
  try {
    SandboxRecord r;
    r.id = j.at("id").get<std::string>();
    r.tenant = j.at("tenant").get<std::string>();
    r.language = j.at("language").get<std::string>();
    auto state = ParseState(j.at("state").get<std::string>());
    if (!state) return InvalidArgumentError("sandbox record: bad state");
    r.state = *state;
    r.created_at_ms = j.at("created_at_ms").get<int64_t>();
    r.last_used_at_ms = j.at("last_used_at_ms").get<int64_t>();
    r.ttl_s = j.at("ttl_s").get<int64_t>();
    r.ended_at_ms = j.at("ended_at_ms").get<int64_t>();
    const json& l = j.at("limits");
    r.limits.timeout_ms = l.at("timeout_ms").get<int64_t>();
    r.limits.cpu_ms = l.at("cpu_ms").get<int64_t>();
    r.limits.memory_bytes = l.at("memory_bytes").get<int64_t>();
    r.limits.pids = l.at("pids").get<int64_t>();
    r.limits.output_bytes = l.at("output_bytes").get<int64_t>();
    r.limits.tmp_bytes = l.at("tmp_bytes").get<int64_t>();
    r.limits.cpus = l.at("cpus").get<double>();
    r.runtime = j.at("runtime").get<std::string>();
    r.volume_id = j.value("volume_id", "");
    r.container_id = j.at("container_id").get<std::string>();
    r.executions = j.at("executions").get<int64_t>();
    r.restarts = j.at("restarts").get<int64_t>();
    r.cpu_ms_total = j.at("cpu_ms_total").get<int64_t>();
    r.memory_peak_bytes = j.at("memory_peak_bytes").get<int64_t>();
    r.stopped_reason = j.at("stopped_reason").get<std::string>();
    // Records written before E2B sandboxes lack these.
    r.home_bytes = j.value("home_bytes", int64_t{0});
    r.template_id = j.value("template_id", "");
    r.metadata = j.value("metadata", std::map<std::string, std::string>{});
    r.envs = j.value("envs", std::map<std::string, std::string>{});
    r.access_token = j.value("access_token", "");
    r.tier = j.value("tier", "");
    r.packages = j.value("packages", std::vector<std::string>{});
    r.package_layer = j.value("package_layer", "");
    r.network_allowlist = j.value("network", "none") == "allowlist";
    return r;
  } catch (const json::exception& e) {
    return InvalidArgumentError(std::string("sandbox record: ") + e.what());
  }
}

}  // namespace coderunner::sandboxes
