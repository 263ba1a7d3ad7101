// VolumeClient: the /volumes resource of the Engine API.
#ifndef CODERUNNER_ENGINE_VOLUMES_H_
#define CODERUNNER_ENGINE_VOLUMES_H_

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/engine/transport.h"

namespace coderunner::engine {

// The engine refuses to remove a volume a container still uses (409).
inline constexpr char kReasonVolumeInUse[] = "volume_in_use";

// What the engine tells us about one volume; the same shape on Docker and
// Podman.
struct VolumeInfo {
  std::string name;
  std::string driver;
  std::string mountpoint;  // The engine's path for it on the host.
  std::string created_at;  // RFC 3339, as the engine wrote it.
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> options;  // Driver options.
};

// Thread-safe if the transport is. Does not own the transport, which must
// outlive it. Every call is bounded by `timeout`.
class VolumeClient {
 public:
  VolumeClient(Transport& transport, std::chrono::milliseconds timeout)
      : transport_(transport), timeout_(timeout) {}

  // POST /volumes/create with the local driver. `driver_options` are the
  // local driver's (type, device, o). A name in use is AlreadyExists.
  StatusOr<VolumeInfo> Create(const std::string& name,
                              const std::map<std::string, std::string>& labels,
                              const std::map<std::string, std::string>& driver_options);

  // GET /volumes/{name}. Missing: NotFound.
  StatusOr<VolumeInfo> Inspect(const std::string& name);

  // GET /volumes filtered by `labels`. Docker returns volumes carrying all
  // of them; Podman 4.3 ORs several label filters and returns volumes
  // carrying any one, so callers must check the labels they rely on.
  StatusOr<std::vector<VolumeInfo>> List(const std::map<std::string, std::string>& labels);

  // DELETE /volumes/{name}. Already gone is OK. A volume a container still
  // uses is FailedPrecondition with reason "volume_in_use" (Docker answers
  // 409; Podman 4.3 also answers 409 for its "volume is being used").
  Status Remove(const std::string& name);

 private:
  Transport& transport_;
  std::chrono::milliseconds timeout_;
};

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_VOLUMES_H_
