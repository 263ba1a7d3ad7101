// Resource limits: memory without swap, CPU share, pids, and rlimits.
#include <algorithm>
#include <cmath>

#include "coderunner/sandbox/mechanism.h"

namespace coderunner::sandbox {
namespace {

nlohmann::json Ulimit(const char* name, int64_t soft, int64_t hard) {
  return {{"Name", name}, {"Soft", soft}, {"Hard", hard}};
}

class ResourceLimits : public Mechanism {
 public:
  std::string_view name() const override { return "resources"; }

  void Apply(const PolicySettings& settings, const ContainerContext& ctx,
             nlohmann::json& create) const override {
    const Limits& l = ctx.job.limits;
    auto& host = create["HostConfig"];
    host["Memory"] = l.memory_bytes;
    host["MemorySwap"] = l.memory_bytes;  // Equal to Memory: no swap at all.
    host["NanoCpus"] = static_cast<int64_t>(std::llround(l.cpus * 1e9));
    host["PidsLimit"] = l.pids;
    host["OomKillDisable"] = false;
    // RLIMIT_CPU is whole seconds; round up, and give a one-second gap
    // between the soft limit (SIGXCPU, catchable) and the hard one (SIGKILL).
    int64_t cpu_s = (l.cpu_ms + 999) / 1000;
    // RLIMIT_FSIZE bounds any one file the job writes, in /tmp (which its
    // tmpfs size bounds anyway) or /output; a file in /output may be as
    // large as /output allows, and no larger.
    int64_t output_file =
        ctx.output.max_file_bytes > 0 ? ctx.output.max_file_bytes : ctx.output.max_bytes;
    int64_t fsize = std::max(l.tmp_bytes, output_file);
    // Every rlimit is explicit: Podman cannot apply its defaults on hosts
    // without CAP_SYS_RESOURCE, and Docker's would come from the daemon.
    host["Ulimits"] = {
        Ulimit("nofile", settings.nofile, settings.nofile),
        Ulimit("nproc", settings.nproc, settings.nproc),
        Ulimit("fsize", fsize, fsize),
        Ulimit("core", 0, 0),
        Ulimit("cpu", cpu_s, cpu_s + 1),
    };
  }

  Status Verify(const PolicySettings&, const ContainerContext& ctx,
                const nlohmann::json& inspect) const override {
    const Limits& l = ctx.job.limits;
    const auto& mem = InspectField(inspect, "HostConfig", "Memory");
    if (mem != l.memory_bytes)
      return PolicyMismatch(name(), "HostConfig.Memory", l.memory_bytes, mem);
    const auto& swap = InspectField(inspect, "HostConfig", "MemorySwap");
    if (swap != l.memory_bytes) {
      return PolicyMismatch(name(), "HostConfig.MemorySwap", l.memory_bytes, swap);
    }
    const auto& pids = InspectField(inspect, "HostConfig", "PidsLimit");
    if (pids != l.pids) return PolicyMismatch(name(), "HostConfig.PidsLimit", l.pids, pids);
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeResourceLimits() { return std::make_unique<ResourceLimits>(); }

}  // namespace coderunner::sandbox
