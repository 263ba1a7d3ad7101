// Filesystem isolation: a read-only root, a read-only workspace, and
// size-capped tmpfs mounts (/tmp, and a sandbox's /home/user) as the only
// writable places besides /output.
#include "coderunner/isolation/mechanism.h"

namespace coderunner::isolation {
namespace {

std::string TmpfsOptions(int64_t bytes) {
  // mode=1777 so uid 65534 can write; noexec/nosuid/nodev as defence in depth.
  return "rw,noexec,nosuid,nodev,size=" + std::to_string(bytes) + ",mode=1777";
}

constexpr const char* kReadOnlyTmpfs = "ro,noexec,nosuid,nodev,size=4096,mode=0755";

// A home the job may also run what it wrote from (E2B's users do): "exec"
// said outright (without it Docker mounts it noexec, and mode 0755); mode
// 1777 because Podman 4.3 refuses tmpfs uid= options.
std::string HomeTmpfsOptions(int64_t bytes) {
  return "rw,exec,nosuid,nodev,size=" + std::to_string(bytes) + ",mode=1777";
}

nlohmann::json InspectMounts(const nlohmann::json& inspect) {
  auto it = inspect.find("Mounts");
  return it == inspect.end() ? nlohmann::json(nullptr) : *it;
}

// Whether the engine mounted `source` at `destination`, read-only.
bool HasReadOnlyBind(const nlohmann::json& inspect, std::string_view destination,
                     const std::string& source) {
  const nlohmann::json mounts = InspectMounts(inspect);
  if (!mounts.is_array()) return false;
  for (const auto& m : mounts) {
    if (m.is_object() && m.value("Destination", "") == destination) {
      return m.value("RW", true) == false && m.value("Source", "") == source;
    }
  }
  return false;
}

class FilesystemIsolation : public Mechanism {
 public:
  std::string_view name() const override { return "filesystem"; }

  void Apply(const PolicySettings& settings, const ContainerContext& ctx,
             nlohmann::json& create) const override {
    auto& host = create["HostConfig"];
    host["ReadonlyRootfs"] = true;
    // Podman, under ReadonlyRootfs, silently adds writable, unsized tmpfs
    // mounts on /run and /var/tmp (containers.conf read_only_tmpfs). An
    // explicit mount at those paths replaces its own, so cover both with
    // empty read-only tmpfs; on Docker this changes nothing but hides the
    // image's /run. Either way /tmp stays the only writable place.
    host["Tmpfs"] = {{std::string(kTmpMount), TmpfsOptions(ctx.job.limits.tmp_bytes)},
                     {"/run", kReadOnlyTmpfs},
                     {"/var/tmp", kReadOnlyTmpfs}};
    host["Binds"] = {
        ctx.workspace_host_path + ":" + std::string(kWorkspaceMount) + ":ro",
        settings.init_host_path + ":" + std::string(kInitMount) + ":ro",
    };
    // /output: the job's own artifact directory or its tenant's volume, the
    // one writable place besides /tmp. coderunner-init bounds what it holds.
    if (!ctx.output.source.empty()) {
      host["Binds"].push_back(ctx.output.source + ":" + std::string(kOutputMount) + ":rw");
    }
    // Every installed package layer, read-only; the job's workspace links
    // to its own, if any. In every container, pooled ones too, whose jobs
    // are not known when they are created.
    if (!settings.packages_host_dir.empty()) {
      host["Binds"].push_back(settings.packages_host_dir + ":" + std::string(kPackagesMount) +
                              ":ro");
    }
    // No /dev/shm at all: a shared-memory tmpfs would be a second writable
    // place that is not size-capped by our /tmp setting.
    host["IpcMode"] = "none";
    create["WorkingDir"] = std::string(kWorkspaceMount);
    if (ctx.job.home_bytes > 0) {
      // Not the container's WorkingDir: Docker would make that directory
      // first, and the tmpfs would take its mode (0755, root's) instead of
      // 1777. Processes started in the sandbox start there instead.
      host["Tmpfs"][std::string(kHomeMount)] = HomeTmpfsOptions(ctx.job.home_bytes);
    }
  }

  Status Verify(const PolicySettings& settings, const ContainerContext& ctx,
                const nlohmann::json& inspect) const override {
    const auto& ro = InspectField(inspect, "HostConfig", "ReadonlyRootfs");
    if (ro != true) return PolicyMismatch(name(), "HostConfig.ReadonlyRootfs", true, ro);
    if (ctx.job.home_bytes > 0) {
      const auto& tmpfs = InspectField(inspect, "HostConfig", "Tmpfs");
      const std::string want = HomeTmpfsOptions(ctx.job.home_bytes);
      // Podman adds its own options (",rprivate,tmpcopyup") after ours.
      const std::string got =
          tmpfs.is_object() ? tmpfs.value(std::string(kHomeMount), "") : std::string();
      if (got != want && got.rfind(want + ",", 0) != 0) {
        return PolicyMismatch(name(), "HostConfig.Tmpfs[/home/user]", want, tmpfs);
      }
    }
    // Mounts is the engine's view of what it actually mounted.
    bool workspace_ro = false;
    if (inspect.contains("Mounts") && inspect["Mounts"].is_array()) {
      for (const auto& m : inspect["Mounts"]) {
        if (m.is_object() && m.value("Destination", "") == kWorkspaceMount) {
          workspace_ro =
              m.value("RW", true) == false && m.value("Source", "") == ctx.workspace_host_path;
        }
      }
    }
    if (!workspace_ro) {
      return PolicyMismatch(name(), "Mounts[/workspace].RW", false, InspectMounts(inspect));
    }
    if (!settings.packages_host_dir.empty() &&
        !HasReadOnlyBind(inspect, kPackagesMount, settings.packages_host_dir)) {
      return PolicyMismatch(name(), "Mounts[/opt/coderunner/packages].RW", false,
                            InspectMounts(inspect));
    }
    // Nothing but /output may be a writable mount (tmpfs mounts are not
    // listed in Mounts).
    if (inspect.contains("Mounts") && inspect["Mounts"].is_array()) {
      for (const auto& m : inspect["Mounts"]) {
        if (!m.is_object() || !m.value("RW", false)) continue;
        if (m.value("Destination", "") != kOutputMount || ctx.output.source.empty()) {
          return PolicyMismatch(name(), "Mounts[].RW", "only /output", InspectMounts(inspect));
        }
      }
    }
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeFilesystemIsolation() {
  return std::make_unique<FilesystemIsolation>();
}

}  // namespace coderunner::isolation
