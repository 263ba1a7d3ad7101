// SystemClient: engine-wide endpoints (/_ping, /version).
#ifndef CODERUNNER_ENGINE_SYSTEM_H_
#define CODERUNNER_ENGINE_SYSTEM_H_

#include <chrono>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/engine/transport.h"

namespace coderunner::engine {

enum class EngineKind { kDocker, kPodman };

struct EngineVersion {
  EngineKind kind = EngineKind::kDocker;
  std::string version;      // e.g. "20.10.24" or "4.3.1".
  std::string api_version;  // Highest API version the engine serves.
};

// Thread-safe if the transport is. Does not own the transport.
class SystemClient {
 public:
  SystemClient(Transport& transport, std::chrono::milliseconds timeout)
      : transport_(transport), timeout_(timeout) {}

  // GET /_ping. OK when the engine answers "OK"; Unavailable otherwise.
  Status Ping();

  // GET /version. Podman is recognised by its "Podman Engine" component.
  StatusOr<EngineVersion> Version();

 private:
  Transport& transport_;
  std::chrono::milliseconds timeout_;
};

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_SYSTEM_H_
