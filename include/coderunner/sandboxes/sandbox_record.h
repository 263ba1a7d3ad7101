// SandboxRecord: what the service keeps about one stateful sandbox.
#ifndef CODERUNNER_SANDBOXES_SANDBOX_RECORD_H_
#define CODERUNNER_SANDBOXES_SANDBOX_RECORD_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/isolation/limits.h"

namespace coderunner::sandboxes {

// running: its container serves calls. stopped: its container is gone and
// could not be brought back (the reason says why); calls answer 409.
// expired: its TTL passed; container and files are removed, the record
// stays listable for a while.
enum class SandboxState { kRunning, kStopped, kExpired };

std::string_view StateName(SandboxState state);
std::optional<SandboxState> ParseState(std::string_view name);

struct SandboxRecord {
  std::string id;  // "sbx-" + 24 hex.
  std::string tenant;
  std::string language;
  SandboxState state = SandboxState::kRunning;
  int64_t created_at_ms = 0;    // Unix ms.
  int64_t last_used_at_ms = 0;  // Unix ms; creation or the last call.
  int64_t ttl_s = 3600;         // Idle lifetime after the last use, s.
  int64_t ended_at_ms = 0;      // Unix ms it stopped or expired; 0 while running.
  // The container's limits; timeout_ms is a call's default timeout.
  isolation::Limits limits;
  std::string runtime;             // OCI runtime ("" = the engine's default).
  std::string volume_id;           // A persistent volume mounted at /output; "" = none.
  std::string container_id;        // The current container ("" when none).
  int64_t executions = 0;          // Calls served.
  int64_t restarts = 0;            // Times the container was replaced (state lost).
  int64_t cpu_ms_total = 0;        // CPU of all calls, ms.
  int64_t memory_peak_bytes = -1;  // Highest peak any call reported; -1 unknown.
  std::string stopped_reason;      // With kStopped.
  // A writable /home/user of this many bytes, the working directory
  // (isolation::JobSpec::home_bytes); 0: none.
  int64_t home_bytes = 0;
  // What an E2B client created it with: the template, its metadata, and the
  // environment every process started in it gets. Empty otherwise.
  std::string template_id;
  std::map<std::string, std::string> metadata;
  std::map<std::string, std::string> envs;
  // An E2B client's calls into the sandbox (processes, files) carry no API
  // key but this token, issued at creation (a connect with the tenant's
  // key hands it out again); they act for the tenant with the tier it had
  // then. The record's file is the service's alone.
  std::string access_token;
  std::string tier;
  // The packages its `pip install` or `npm install` asked for so far, as
  // checked requirements ("crtiny==1.0", "crleft@^1"): installed together as
  // one layer, which the workspace links to (SandboxManager::AddPackages).
  std::vector<std::string> packages;
  std::string package_layer;  // The layer they were installed as; "" = none.
  // "network": "allowlist": its tier's hosts through the service's proxy,
  // made again for each of its containers (SandboxManager::SpecOf).
  bool network_allowlist = false;

  int64_t expires_at_ms() const { return last_used_at_ms + ttl_s * 1000; }
};

// The durable form (all fields). Pure.
nlohmann::json RecordToJson(const SandboxRecord& record);
// Inverse of RecordToJson; a missing or mistyped field is InvalidArgument.
StatusOr<SandboxRecord> RecordFromJson(const nlohmann::json& j);

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_SANDBOX_RECORD_H_
