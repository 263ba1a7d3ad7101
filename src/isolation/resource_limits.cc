// Resource limits: memory without swap, CPU share, pids, and rlimits.
#include <algorithm>
#include <cmath>

#include "coderunner/isolation/mechanism.h"

namespace coderunner::isolation {
namespace {

nlohmann::json Ulimit(const char* name, int64_t soft, int64_t hard) {
  return {{"Name", name}, {"Soft", soft}, {"Hard", hard}};
}

// How limits.pids (the job's processes + threads) is enforced.
//
// runc: the container's pids cgroup holds exactly the job's tasks, so
// PidsLimit is limits.pids; RLIMIT_NPROC counts every process of uid 65534
// on the host, so it is only the host-wide backstop sandbox.nproc.
//
// runsc (gVisor): the job's tasks live in gVisor's own kernel (the sentry),
// which enforces RLIMIT_NPROC per sandbox, counting threads too, exactly as
// the pids cgroup does under runc: so RLIMIT_NPROC is limits.pids. The pids
// cgroup instead holds the sandbox's HOST threads: the sentry's, the
// gofer's and, on the ptrace platform, stub threads per guest process
// (measured with runsc 20221219: about 40 at rest plus 5.5 to 16 per guest
// process, the most for bash's forked subshells; guest threads cost almost
// nothing). Set to limits.pids it starves the sentry, which dies (exit 2,
// output lost) at a mere shell pipeline. So PidsLimit becomes a host-side
// backstop with room for that overhead. With 8 per process the bash fork
// bomb (tests/hostile/fork_bomb.sh) still killed the sentry 1 run in 3
// before the guest's RLIMIT_NPROC of 64 stopped it; with 16, 0 in 6; with
// the 20 used here, 0 in 8 (and 64 + 20 * 64 host threads is still a
// small bound).
struct PidsBounds {
  int64_t pids_limit;  // HostConfig.PidsLimit.
  int64_t nproc;       // RLIMIT_NPROC, soft = hard.
};

constexpr int64_t kGvisorHostPidsBase = 64;     // Sentry and gofer at rest, with margin.
constexpr int64_t kGvisorHostPidsPerTask = 20;  // Per guest process, with margin.

PidsBounds PidsBoundsFor(const PolicySettings& settings, const JobSpec& job) {
  if (EffectiveRuntime(settings, job) == kGvisorRuntime) {
    return {kGvisorHostPidsBase + kGvisorHostPidsPerTask * job.limits.pids, job.limits.pids};
  }
  return {job.limits.pids, settings.nproc};
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
    const PidsBounds pids = PidsBoundsFor(settings, ctx.job);
    host["PidsLimit"] = pids.pids_limit;
    host["OomKillDisable"] = false;
    // RLIMIT_CPU is whole seconds; round up, and give a one-second gap
    // between the soft limit (SIGXCPU, catchable) and the hard one (SIGKILL).
    // gVisor (runsc 20221219) accepts it but never enforces it; there
    // coderunner-init's -c watchdog kills the job at cpu_ms (clean_process.cc).
    int64_t cpu_s = (l.cpu_ms + 999) / 1000;
    // RLIMIT_FSIZE bounds any one file the job writes, in /tmp or a
    // sandbox's /home/user (which their tmpfs sizes bound anyway) or
    // /output; a file in /output may be as large as /output allows, and no
    // larger.
    int64_t output_file =
        ctx.output.max_file_bytes > 0 ? ctx.output.max_file_bytes : ctx.output.max_bytes;
    int64_t fsize = std::max({l.tmp_bytes, output_file, ctx.job.home_bytes});
    // Every rlimit is explicit: Podman cannot apply its defaults on hosts
    // without CAP_SYS_RESOURCE, and Docker's would come from the daemon.
    host["Ulimits"] = {
        Ulimit("nofile", settings.nofile, settings.nofile),
        Ulimit("nproc", pids.nproc, pids.nproc),
        Ulimit("fsize", fsize, fsize),
        Ulimit("core", 0, 0),
        Ulimit("cpu", cpu_s, cpu_s + 1),
    };
  }

  Status Verify(const PolicySettings& settings, const ContainerContext& ctx,
                const nlohmann::json& inspect) const override {
    const Limits& l = ctx.job.limits;
    const auto& mem = InspectField(inspect, "HostConfig", "Memory");
    if (mem != l.memory_bytes)
      return PolicyMismatch(name(), "HostConfig.Memory", l.memory_bytes, mem);
    const auto& swap = InspectField(inspect, "HostConfig", "MemorySwap");
    if (swap != l.memory_bytes) {
      return PolicyMismatch(name(), "HostConfig.MemorySwap", l.memory_bytes, swap);
    }
    const int64_t want_pids = PidsBoundsFor(settings, ctx.job).pids_limit;
    const auto& pids = InspectField(inspect, "HostConfig", "PidsLimit");
    if (pids != want_pids) return PolicyMismatch(name(), "HostConfig.PidsLimit", want_pids, pids);
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeResourceLimits() { return std::make_unique<ResourceLimits>(); }

}  // namespace coderunner::isolation
