#include "coderunner/volumes/volume_service.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "coderunner/auth/authenticator.h"
#include "coderunner/common/ids.h"
#include "coderunner/common/wall_clock.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/mechanism.h"
#include "coderunner/isolation/workspace.h"

namespace coderunner::volumes {
namespace {

Status NotFound(const std::string& id) {
  return NotFoundError("no volume " + id.substr(0, 64), "volume_not_found");
}

bool ValidVolumeId(const std::string& id) {
  if (id.size() != 28 || id.rfind("vol-", 0) != 0) return false;
  return std::all_of(id.begin() + 4, id.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The host directory the volume is bound to: owned by the volume's uid (and
// gid of the same number), 0700; its parent is root's alone.
Status MakeHostDir(const std::string& root, const std::string& id, int64_t uid, std::string* path) {
  if (mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) {
    return InternalError("create " + root + ": " + strerror(errno), "volume_io");
  }
  *path = root + "/" + id;
  if (mkdir(path->c_str(), 0700) != 0) {
    return InternalError("create " + *path + ": " + strerror(errno), "volume_io");
  }
  isolation::UniqueFd fd(open(path->c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  const auto id_t = static_cast<uid_t>(uid);
  if (!fd.valid() || fchown(fd.get(), id_t, id_t) != 0 || fchmod(fd.get(), 0700) != 0) {
    int err = errno;
    (void)isolation::RemoveTree(*path);
    return InternalError("prepare " + *path + ": " + strerror(err), "volume_io");
  }
  return OkStatus();
}

}  // namespace

Status CheckVolumesAllowed(const config::TierConfig* tier) {
  if (tier != nullptr && tier->volumes) return OkStatus();
  return FailedPreconditionError(
      "tier " + (tier ? tier->name : std::string("(none)")) +
          " does not include persistent volumes (volumes: false); upgrade to pro or above",
      auth::kReasonForbidden);
}

std::map<std::string, std::string> VolumeService::OwnerLabels(const std::string& tenant) const {
  return {{isolation::kLabelManaged, "true"},
          {isolation::kLabelInstance, config_.instance},
          {kLabelTenant, tenant}};
}

StatusOr<Volume> VolumeService::FromEngine(const engine::VolumeInfo& info) const {
  auto label = [&](const char* k) {
    auto it = info.labels.find(k);
    return it == info.labels.end() ? std::string() : it->second;
  };
  Volume v;
  v.id = label(kLabelVolume);
  v.tenant = label(kLabelTenant);
  v.name = label(kLabelName);
  v.engine_name = info.name;
  v.host_dir = config_.volumes.dir + "/" + v.id;
  try {
    v.size_bytes = std::stoll(label(kLabelSize));
    v.created_at_ms = std::stoll(label(kLabelCreated));
    // No uid label: a volume from before volumes had a uid of their own.
    std::string uid = label(kLabelUid);
    v.uid = uid.empty() ? isolation::kJobUid : std::stoll(uid);
  } catch (const std::exception&) {
    return NotFound(v.id);
  }
  // A uid outside the job range (root, say) never runs a job.
  if (v.uid != isolation::kJobUid && !uids_.Contains(v.uid)) return NotFound(v.id);
  uids_.Reserve(v.uid);
  // Only volumes we made, bound where we put them, count: a look-alike
  // someone else created on the engine must never become a job's /output.
  auto device = info.options.find("device");
  if (!ValidVolumeId(v.id) || info.name != "coderunner-" + v.id ||
      label(isolation::kLabelInstance) != config_.instance || device == info.options.end() ||
      device->second != v.host_dir) {
    return NotFound(v.id);
  }
  return v;
}

StatusOr<Volume> VolumeService::Create(const std::string& tenant, const config::TierConfig* tier,
                                       const VolumeRequest& request) {
  CR_RETURN_IF_ERROR(CheckVolumesAllowed(tier));
  const std::string& name = request.name;
  int64_t size_bytes = request.size_bytes;
  if (size_bytes > config_.volumes.max_size_bytes) {
    return FailedPreconditionError(
        "size_bytes " + std::to_string(size_bytes) + " exceeds the maximum " +
            std::to_string(config_.volumes.max_size_bytes) + " (volumes.max_size_bytes)",
        "limit_exceeded");
  }

  std::lock_guard<std::mutex> lock(create_mu_);
  CR_ASSIGN_OR_RETURN(std::vector<Volume> existing, List(tenant));
  if (static_cast<int>(existing.size()) >= config_.volumes.max_per_tenant) {
    return ResourceExhaustedError("tier " + tier->name + ": at most " +
                                      std::to_string(config_.volumes.max_per_tenant) +
                                      " volumes per tenant (volumes.max_per_tenant)",
                                  "too_many_volumes");
  }
  Volume v;
  v.id = NewId("vol");
  v.tenant = tenant;
  v.name = name;
  v.size_bytes = size_bytes;
  v.created_at_ms = WallClockMs();
  v.engine_name = "coderunner-" + v.id;
  // A uid of its own for the volume's whole life; given back on Delete.
  CR_ASSIGN_OR_RETURN(isolation::UidLease lease, uids_.Lease());
  v.uid = lease.uid();
  CR_RETURN_IF_ERROR(MakeHostDir(config_.volumes.dir, v.id, v.uid, &v.host_dir));
  auto labels = OwnerLabels(tenant);
  labels[kLabelUid] = std::to_string(v.uid);
  labels[kLabelVolume] = v.id;
  labels[kLabelSize] = std::to_string(size_bytes);
  labels[kLabelName] = name;
  labels[kLabelCreated] = std::to_string(v.created_at_ms);
  // The local driver's bind: the engine mounts our directory wherever a
  // container asks for the volume, on Docker and Podman alike.
  auto created = client_.Create(v.engine_name, labels,
                                {{"type", "none"}, {"device", v.host_dir}, {"o", "bind"}});
  if (!created.ok()) {
    (void)isolation::RemoveTree(v.host_dir);
    return created.status();
  }
  lease.Keep();
  return v;
}

StatusOr<Volume> VolumeService::Get(const std::string& tenant, const std::string& id) {
  if (!ValidVolumeId(id)) return NotFound(id);
  auto info = client_.Inspect("coderunner-" + id);
  if (!info.ok()) {
    return info.status().code() == StatusCode::kNotFound ? NotFound(id) : info.status();
  }
  auto v = FromEngine(*info);
  if (!v.ok() || v->tenant != tenant || v->id != id) return NotFound(id);
  return v;
}

StatusOr<std::vector<Volume>> VolumeService::List(const std::string& tenant) {
  CR_ASSIGN_OR_RETURN(std::vector<engine::VolumeInfo> infos, client_.List(OwnerLabels(tenant)));
  std::vector<Volume> out;
  for (const auto& info : infos) {
    auto v = FromEngine(info);
    if (v.ok() && v->tenant == tenant) out.push_back(std::move(*v));
  }
  std::sort(out.begin(), out.end(), [](const Volume& a, const Volume& b) {
    return a.created_at_ms != b.created_at_ms ? a.created_at_ms < b.created_at_ms : a.id < b.id;
  });
  return out;
}

Status VolumeService::Delete(const std::string& tenant, const std::string& id) {
  CR_ASSIGN_OR_RETURN(Volume v, Get(tenant, id));
  CR_RETURN_IF_ERROR(client_.Remove(v.engine_name));
  CR_RETURN_IF_ERROR(isolation::RemoveTree(v.host_dir));
  if (v.uid != isolation::kJobUid) uids_.Unreserve(v.uid);
  return OkStatus();
}

StatusOr<isolation::TreeListing> VolumeService::ListFiles(const Volume& volume) {
  isolation::TreeWalkOptions options;
  options.max_depth = kVolumeMaxDepth;
  options.max_entries = config_.volumes.max_files;
  return isolation::ListTree(volume.host_dir, options);
}

StatusOr<isolation::UniqueFd> VolumeService::OpenFile(const Volume& volume,
                                                      const std::string& path) {
  return isolation::OpenTreeFile(volume.host_dir, path, kVolumeMaxDepth);
}

StatusOr<isolation::VolumeMount> VolumeService::Resolve(const std::string& tenant,
                                                        const config::TierConfig* tier,
                                                        const std::string& volume_id) {
  if (tier != nullptr && !tier->volumes) return CheckVolumesAllowed(tier);
  CR_ASSIGN_OR_RETURN(Volume v, Get(tenant, volume_id));
  isolation::VolumeMount m;
  m.id = v.id;
  m.engine_name = v.engine_name;
  m.host_dir = v.host_dir;
  m.quota_bytes = v.size_bytes;
  m.max_files = config_.volumes.max_files;
  m.uid = v.uid;
  return m;
}

}  // namespace coderunner::volumes
