// Mechanism: one isolation mechanism of the container policy.
//
// The policy is the sum of mechanisms, each in its own file and each exposing
// the same two verbs: Apply (shape the create body) and Verify (check that an
// inspected container really carries the setting). Verify lets tests and the
// startup self-check prove that an engine honoured the policy rather than
// silently dropping a field. Mechanisms are stateless and thread-safe.
#ifndef CODERUNNER_ISOLATION_MECHANISM_H_
#define CODERUNNER_ISOLATION_MECHANISM_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/isolation/job_spec.h"

namespace coderunner::isolation {

// The engine did not honour a setting of the policy (Verify failed).
inline constexpr char kReasonPolicyNotApplied[] = "policy_not_applied";

// Fixed paths inside every container.
// The installed package layers (packages.dir/layers), read-only; a job
// reaches only the layer its workspace links to (kPackagesLink).
inline constexpr std::string_view kPackagesMount = "/opt/coderunner/packages";
inline constexpr std::string_view kWorkspaceMount = "/workspace";
inline constexpr std::string_view kInitMount = "/.coderunner-init";
// The job's one persistent-or-artifact writable directory.
inline constexpr std::string_view kOutputMount = "/output";
// The job's size-capped scratch tmpfs.
inline constexpr std::string_view kTmpMount = "/tmp";
// A sandbox's home (JobSpec::home_bytes), where E2B's SDKs expect it.
inline constexpr std::string_view kHomeMount = "/home/user";
// The uid and gid (nobody/nogroup) of a volume created before volumes had
// a uid of their own; every other container runs as a uid of its own from
// the UidPool (uid_pool.h), with the gid of the same number.
inline constexpr int kJobUid = 65534;
inline constexpr int kJobGid = 65534;
// Name of the stdin file inside the workspace (the ".coderunner" prefix is
// reserved, so no request file can collide with it).
inline constexpr std::string_view kStdinFile = ".coderunner-stdin";
// Name of the warm pool's "go" FIFO inside a pooled container's workspace
// (same reserved prefix).
inline constexpr std::string_view kGoFifo = ".coderunner-go";
// A symlink in the workspace to the job's package layer under
// kPackagesMount (same reserved prefix); PYTHONPATH names its python/.
inline constexpr std::string_view kPackagesLink = ".coderunner-packages";
// A symlink in the workspace to the node_modules of a job's npm layer:
// Node resolves both require() and import from a directory named so next
// to the program, or above it.
inline constexpr std::string_view kNodeModulesLink = "node_modules";

// Service-wide settings the mechanisms need besides the job.
struct PolicySettings {
  std::string init_host_path;  // Host path of the coderunner-init binary.
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp",
                                  "LANG=C.UTF-8"};  // The job's whole environment.
  int64_t nofile = 1024;                            // RLIMIT_NOFILE, soft = hard.
  // RLIMIT_NPROC counts every process of uid 65534 on the host, across all
  // jobs; PidsLimit is the per-job bound, this only a host-wide backstop.
  int64_t nproc = 4096;
  std::string runtime;  // OCI runtime name ("" = engine default, "runsc" = gVisor).
  // Host directory bound read-only at kPackagesMount in every container
  // ("" = none: no packages configured).
  std::string packages_host_dir;
};

// What backs /output, and its bounds: coderunner-init enforces them from
// inside (-q -f -n), the service's OutputWatch from the host.
struct OutputMount {
  std::string source;          // Bind source: a host directory, or an engine volume's name.
  bool is_volume = false;      // A persistent volume: init rolls back an over-quota run.
  int64_t max_bytes = 0;       // All files together, bytes; 0 = unbounded.
  int64_t max_file_bytes = 0;  // One file, bytes; 0 = unbounded.
  int64_t max_entries = 0;     // Files and directories; 0 = unbounded.
  // The host directory the engine binds at /output (for a volume, its
  // directory under volumes.dir): what the service watches and measures.
  // Not part of the create body.
  std::string host_dir;
};
// The OCI runtime name of gVisor.
inline constexpr std::string_view kGvisorRuntime = "runsc";

// The OCI runtime `job` runs under: job.runtime, else settings.runtime; ""
// means the engine's default (runc). The reference lives as long as both.
inline const std::string& EffectiveRuntime(const PolicySettings& settings, const JobSpec& job) {
  return job.runtime.empty() ? settings.runtime : job.runtime;
}

// What one container is being built for.
struct ContainerContext {
  ContainerContext(const JobSpec& j, std::string workspace, bool stdin_file, OutputMount out)
      : job(j),
        workspace_host_path(std::move(workspace)),
        has_stdin(stdin_file),
        output(std::move(out)) {}

  const JobSpec& job;
  std::string workspace_host_path;  // Bind source for /workspace.
  bool has_stdin = false;           // A stdin file exists in the workspace.
  OutputMount output;               // source "" = no /output at all.
  // A warm-pool container: created and started before its job exists.
  // coderunner-init then waits on kGoFifo for the job's arguments and stdin
  // choice (has_stdin and job.args are not part of the create body); every
  // other field, and so the whole security policy, is the same.
  bool pooled = false;
  // With `pooled`: the pool's label value (kLabelPool), naming the service
  // process that owns the container.
  std::string pool_label;
  // A cold job's trailer nonce: init gets it in its own environment
  // (CODERUNNER_EOF_NONCE), which the job never sees, and ends its trailer
  // with it; the service takes no trailer without it. "" for pooled
  // containers (the "go" message carries theirs) and sandboxes.
  std::string eof_nonce;
  // The host uid (and gid) every process of the container runs as: its
  // lease from the UidPool, or its volume's own uid.
  int64_t uid = kJobUid;
};

class Mechanism {
 public:
  virtual ~Mechanism() = default;
  // Short name for logs and errors, e.g. "network".
  virtual std::string_view name() const = 0;
  // Adds this mechanism's fields to `create` (a POST /containers/create body).
  virtual void Apply(const PolicySettings& settings, const ContainerContext& ctx,
                     nlohmann::json& create) const = 0;
  // Checks `inspect` (a GET /containers/{id}/json body). FailedPrecondition
  // with reason "policy_not_applied", naming the field, if it does not hold.
  virtual Status Verify(const PolicySettings& settings, const ContainerContext& ctx,
                        const nlohmann::json& inspect) const = 0;
};

std::unique_ptr<Mechanism> MakeNetworkIsolation();     // network_isolation.cc
std::unique_ptr<Mechanism> MakeFilesystemIsolation();  // filesystem_isolation.cc
std::unique_ptr<Mechanism> MakeIdentityIsolation();    // identity_isolation.cc
std::unique_ptr<Mechanism> MakeResourceLimits();       // resource_limits.cc
std::unique_ptr<Mechanism> MakeKernelIsolation();      // kernel_isolation.cc
std::unique_ptr<Mechanism> MakeCleanProcess();         // clean_process.cc

// Helper for Verify implementations: FailedPrecondition naming `field`.
Status PolicyMismatch(std::string_view mechanism, std::string_view field,
                      const nlohmann::json& want, const nlohmann::json& got);

// Returns inspect[a][b] or null, never throwing.
const nlohmann::json& InspectField(const nlohmann::json& inspect, const char* section,
                                   const char* field);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_MECHANISM_H_
