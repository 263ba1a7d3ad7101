// VolumeService: tenants' persistent volumes (tiers with `volumes: true`).
//
// A volume is an engine volume (local driver) bound to a host directory
// <volumes.dir>/<id> owned by the volume's own uid, labelled with its owner:
//   io.coderunner.managed=true, io.coderunner.instance=<instance>,
//   io.coderunner.tenant=<tenant>, io.coderunner.volume=<id>,
//   io.coderunner.size_bytes=<quota>, io.coderunner.name=<name>,
//   io.coderunner.created_at=<epoch ms>, io.coderunner.uid=<uid>.
// The labels are the only record: nothing about volumes is kept elsewhere.
// A job with a volume gets it read-write at /output; coderunner-init holds
// it to size_bytes (a run that exceeds it is stopped and rolled back).
// The service reads volume files only through isolation/safe_tree.h.
#ifndef CODERUNNER_VOLUMES_VOLUME_SERVICE_H_
#define CODERUNNER_VOLUMES_VOLUME_SERVICE_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/volumes.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/isolation/mechanism.h"
#include "coderunner/isolation/safe_tree.h"
#include "coderunner/isolation/uid_pool.h"

namespace coderunner::volumes {

inline constexpr const char* kLabelTenant = "io.coderunner.tenant";
inline constexpr const char* kLabelVolume = "io.coderunner.volume";
inline constexpr const char* kLabelSize = "io.coderunner.size_bytes";
inline constexpr const char* kLabelName = "io.coderunner.name";
inline constexpr const char* kLabelCreated = "io.coderunner.created_at";
inline constexpr const char* kLabelUid = "io.coderunner.uid";

struct Volume {
  std::string id;      // "vol-<24 hex>".
  std::string tenant;  // Owner.
  std::string name;    // The caller's label for it; "" if none.
  int64_t size_bytes = 0;
  int64_t created_at_ms = 0;
  std::string engine_name;  // "coderunner-<id>".
  std::string host_dir;     // <volumes.dir>/<id>.
  // Its own host uid (label io.coderunner.uid, from the UidPool; 65534 for
  // a volume without the label): owner of its files, and the uid of every
  // container that mounts it.
  int64_t uid = isolation::kJobUid;
};

// A POST /v1/volumes request, parsed and checked for shape at the HTTP
// edge (api/volume_request.h).
struct VolumeRequest {
  std::string name;        // 1 to 64 of [A-Za-z0-9._-]; "" for none.
  int64_t size_bytes = 0;  // Quota. Bytes; positive.
};

// OK if `tier` (nullable) includes persistent volumes; otherwise
// FailedPrecondition "forbidden" (403) naming the tier. Pure.
Status CheckVolumesAllowed(const config::TierConfig* tier);

// Thread-safe. Does not own `config`, `client` or `uids`, which must
// outlive it. Every volume it reads from the engine has its uid reserved in
// `uids`, so no job container is ever given a volume's uid.
class VolumeService {
 public:
  VolumeService(const config::Config& config, engine::VolumeClient& client,
                isolation::UidPool& uids)
      : config_(config), client_(client), uids_(uids) {}

  // Creates a volume for `request`. Errors: FailedPrecondition "forbidden"
  // (403) when `tier` has no volumes (CheckVolumesAllowed; checked first);
  // FailedPrecondition "limit_exceeded" (422) above volumes.max_size_bytes;
  // ResourceExhausted "too_many_volumes" (429) at volumes.max_per_tenant;
  // engine errors.
  StatusOr<Volume> Create(const std::string& tenant, const config::TierConfig* tier,
                          const VolumeRequest& request);

  // The tenant's volume `id`; NotFound "volume_not_found" for anything
  // else, including another tenant's volume.
  StatusOr<Volume> Get(const std::string& tenant, const std::string& id);

  // The tenant's volumes, oldest first.
  StatusOr<std::vector<Volume>> List(const std::string& tenant);

  // Deletes the volume and its files. FailedPrecondition "volume_in_use"
  // (409) while a job uses it.
  Status Delete(const std::string& tenant, const std::string& id);

  // Regular files in the volume (never following a symlink); bounded by
  // volumes.max_files entries.
  StatusOr<isolation::TreeListing> ListFiles(const Volume& volume);

  // Opens one regular file of the volume for reading (see OpenTreeFile).
  StatusOr<isolation::UniqueFd> OpenFile(const Volume& volume, const std::string& path);

  // What a job with `volume_id` mounts: NotFound as for Get; FailedPrecondition
  // "forbidden" (403) when `tier` has no volumes (checked first, so a free
  // tenant learns nothing about ids).
  StatusOr<isolation::VolumeMount> Resolve(const std::string& tenant,
                                           const config::TierConfig* tier,
                                           const std::string& volume_id);

 private:
  std::map<std::string, std::string> OwnerLabels(const std::string& tenant) const;
  StatusOr<Volume> FromEngine(const engine::VolumeInfo& info) const;

  const config::Config& config_;
  engine::VolumeClient& client_;
  isolation::UidPool& uids_;
  std::mutex create_mu_;  // Serializes the per-tenant count with creation.
};

// Depth bound for paths inside a volume.
inline constexpr int kVolumeMaxDepth = 32;

}  // namespace coderunner::volumes

#endif  // CODERUNNER_VOLUMES_VOLUME_SERVICE_H_
