// What this node writes into the fleet's node registry: its fixed fields
// from the config. Private to src/service.
#ifndef CODERUNNER_SRC_SERVICE_NODE_IDENTITY_H_
#define CODERUNNER_SRC_SERVICE_NODE_IDENTITY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "coderunner/config/config.h"
#include "coderunner/engine/system.h"
#include "coderunner/store/node_registry.h"

namespace coderunner::service {

// The version this build reports (the CMake project's).
std::string_view CoderunnerVersion();

// "docker" or "podman".
std::string EngineKindName(engine::EngineKind kind);

// This machine's hostname ("localhost" if it cannot be read).
std::string HostName();

// The row of this node, but running and last_heartbeat_ms: id = instance,
// advertised_url = config::AdvertiseUrl(cfg, hostname), engine "native"
// in code_runner.runtime native (else "": the engine tells later), runtime
// = sandbox.runtime, capacity = jobs.max_concurrent (0: the cores, as the
// job service counts its workers), version = CoderunnerVersion(),
// started_at_ms as given (ms since the epoch). Pure but for reading the
// core count; thread-safe.
store::NodeInfo NodeIdentity(const config::Config& cfg, std::string_view hostname,
                             int64_t started_at_ms);

}  // namespace coderunner::service

#endif  // CODERUNNER_SRC_SERVICE_NODE_IDENTITY_H_
