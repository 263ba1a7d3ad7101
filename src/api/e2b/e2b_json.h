// The JSON the E2B SDKs read and send (docs/e2b.md): sandboxes as their
// control plane shows them, and the protobuf-JSON messages of their
// process and filesystem services. Private to src/api.
#ifndef CODERUNNER_API_E2B_E2B_JSON_H_
#define CODERUNNER_API_E2B_E2B_JSON_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/sandboxes/sandbox_files.h"
#include "coderunner/sandboxes/sandbox_processes.h"
#include "coderunner/sandboxes/sandbox_record.h"

namespace coderunner::api::e2b {

// The envd version we answer as: 0.5.7 opens the SDK's octet-stream
// uploads; past 0.6.x it would send file metadata we do not keep.
inline constexpr char kEnvdVersion[] = "0.5.7";
// The SDK's ports, in the E2b-Sandbox-Port header: its process and
// filesystem services, and its code interpreter.
inline constexpr int kEnvdPort = 49983;
inline constexpr int kCodeInterpreterPort = 49999;

// A sandbox as GET /sandboxes/{id} and GET /v2/sandboxes show it. Pure.
nlohmann::json SandboxInfoJson(const sandboxes::SandboxRecord& record);
// The answer to a create or a connect: the info plus the sandbox's access
// token (envdAccessToken). Pure.
nlohmann::json SandboxCreatedJson(const sandboxes::SandboxRecord& record);
// A control-plane error body: {"code": <HTTP status>, "message"}. The SDK
// reads code 404 as "not found". Pure.
nlohmann::json ControlErrorJson(int http_status, const Status& status);

// filesystem.EntryInfo. Pure.
nlohmann::json EntryJson(const sandboxes::EntryInfo& entry);
// process.ProcessEvent inside {"event": ...}. Pure.
nlohmann::json ProcessEventJson(const sandboxes::ProcessEvent& event);
// process.ProcessInfo. Pure.
nlohmann::json ProcessInfoJson(const sandboxes::ProcessInfo& info);
// process.StartRequest's process and tag and stdin. InvalidArgument for
// a missing cmd or mistyped fields. Pure.
StatusOr<sandboxes::ProcessConfig> ProcessConfigFromJson(const nlohmann::json& request);
// A Connect-Timeout-Ms header's value ("" = none: 0). InvalidArgument for
// anything but a count of milliseconds. Pure.
StatusOr<std::chrono::milliseconds> ConnectTimeoutOf(const std::string& header);
// A process.ProcessSelector's pid (a tag is looked up by the caller):
// {"pid": N} or {"tag": "..."}; InvalidArgument otherwise. Pure.
struct Selector {
  int64_t pid = 0;
  std::string tag;
};
StatusOr<Selector> SelectorFromJson(const nlohmann::json& selector);

}  // namespace coderunner::api::e2b

#endif  // CODERUNNER_API_E2B_E2B_JSON_H_
