// Kernel-interface isolation: the engine's seccomp profile and its masked
// and read-only /proc and /sys paths, which both engines apply by default
// and this policy never assumes.
//
// Both are checked twice. Verify refuses an inspected container whose
// SecurityOpt says seccomp=unconfined, or (Docker, which reports them)
// whose MaskedPaths/ReadonlyPaths leave out one of ours. And coderunner-init
// checks from inside, before the job exists, what no inspect field shows:
// that its own process already runs under a seccomp filter (an engine with
// seccomp turned off daemon-wide reports nothing), and that each path below
// really is masked or read-only (Podman's compat API reports neither list).
// It refuses to run the job otherwise (start_error "policy", so the job
// ends as error policy_not_applied). The paths and the seccomp demand reach
// init in its own environment, which the job never sees.
//
// gVisor (runsc) applies no engine profile by default (its sentry filters
// the job's system calls itself, and coderunner-init's own filter runs in
// it), and its /proc is the sentry's own, with no host kernel interface
// behind it (statvfs on /proc/sys answers ENOSYS), so there only the masks
// are demanded.
#include <algorithm>

#include "coderunner/isolation/mechanism.h"

namespace coderunner::isolation {
namespace {

// Docker's and Podman's defaults agree on these (Podman makes /proc/asound
// read-only where Docker masks it, so it is in neither list).
constexpr const char* kMaskedPaths[] = {
    "/proc/acpi",          "/proc/kcore",      "/proc/keys",
    "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
    "/proc/sched_debug",   "/proc/scsi",       "/sys/firmware"};
constexpr const char* kReadonlyPaths[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                          "/proc/sysrq-trigger"};

// init's environment variables (see src/init/coderunner_init.c).
constexpr const char* kMaskedEnv = "CODERUNNER_MASKED_PATHS=";
constexpr const char* kReadonlyEnv = "CODERUNNER_READONLY_PATHS=";
constexpr const char* kSeccompEnv = "CODERUNNER_REQUIRE_SECCOMP=1";

template <size_t N>
std::string ColonList(const char* const (&paths)[N]) {
  std::string out;
  for (const char* p : paths) out += (out.empty() ? "" : ":") + std::string(p);
  return out;
}

template <size_t N>
nlohmann::json JsonList(const char* const (&paths)[N]) {
  nlohmann::json out = nlohmann::json::array();
  for (const char* p : paths) out.push_back(p);
  return out;
}

// Whether the engine-reported list `got` (absent: the engine does not
// report it) holds every path of `want`.
template <size_t N>
bool Covers(const nlohmann::json& got, const char* const (&want)[N]) {
  if (got.is_null()) return true;
  if (!got.is_array()) return false;
  return std::all_of(std::begin(want), std::end(want), [&](const char* p) {
    return std::find(got.begin(), got.end(), nlohmann::json(p)) != got.end();
  });
}

class KernelIsolation : public Mechanism {
 public:
  std::string_view name() const override { return "kernel"; }

  void Apply(const PolicySettings& settings, const ContainerContext& ctx,
             nlohmann::json& create) const override {
    if (!create.contains("Env")) create["Env"] = nlohmann::json::array();
    create["Env"].push_back(kMaskedEnv + ColonList(kMaskedPaths));
    if (EffectiveRuntime(settings, ctx.job) != kGvisorRuntime) {
      create["Env"].push_back(kReadonlyEnv + ColonList(kReadonlyPaths));
      create["Env"].push_back(kSeccompEnv);
    }
  }

  Status Verify(const PolicySettings&, const ContainerContext&,
                const nlohmann::json& inspect) const override {
    const auto& opts = InspectField(inspect, "HostConfig", "SecurityOpt");
    if (opts.is_array()) {
      for (const auto& o : opts) {
        if (!o.is_string()) continue;
        std::string opt = o.get<std::string>();
        std::replace(opt.begin(), opt.end(), ':', '=');
        if (opt == "seccomp=unconfined") {
          return PolicyMismatch(name(), "HostConfig.SecurityOpt", "an engine seccomp profile",
                                opts);
        }
      }
    }
    const auto& masked = InspectField(inspect, "HostConfig", "MaskedPaths");
    if (!Covers(masked, kMaskedPaths)) {
      return PolicyMismatch(name(), "HostConfig.MaskedPaths", JsonList(kMaskedPaths), masked);
    }
    const auto& readonly = InspectField(inspect, "HostConfig", "ReadonlyPaths");
    if (!Covers(readonly, kReadonlyPaths)) {
      return PolicyMismatch(name(), "HostConfig.ReadonlyPaths", JsonList(kReadonlyPaths), readonly);
    }
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeKernelIsolation() { return std::make_unique<KernelIsolation>(); }

}  // namespace coderunner::isolation
