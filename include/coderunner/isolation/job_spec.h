// JobSpec and RunResult: what a sandbox mechanism is asked to run, and what
// comes back.
#ifndef CODERUNNER_ISOLATION_JOB_SPEC_H_
#define CODERUNNER_ISOLATION_JOB_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/language_spec.h"
#include "coderunner/egress/egress_log.h"
#include "coderunner/egress/egress_policy.h"
#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/limits.h"

namespace coderunner::isolation {

using config::LanguageSpec;  // How one language runs (config/language_spec.h).

struct InputFile {
  std::string path;     // Relative, validated (see file_path.h).
  std::string content;  // Raw bytes.
  // Given mode 0750, not 0640: a compiled program (compiling_runner.h).
  bool executable = false;
};

// A tenant's persistent volume, mounted read-write at /output.
struct VolumeMount {
  std::string id;           // "vol-<hex>" as the request named it; "" = no volume.
  std::string engine_name;  // The engine volume, filled in when resolved before the run.
  std::string host_dir;     // Its host directory (<volumes.dir>/<id>), filled in likewise.
  int64_t quota_bytes = 0;  // Its size_bytes: the most all its files may hold.
  int64_t max_files = 0;    // Most entries it may hold; 0 = unbounded.
  // The volume's own host uid (and gid): every file in it is this uid's, and
  // every container that mounts it runs as it. 65534 for a volume created
  // before volumes had a uid of their own.
  int64_t uid = 65534;
};

struct JobSpec {
  std::string id;  // "job-<hex>"; names the container and workspace.
  LanguageSpec language;
  std::string code;
  std::string stdin_data;
  std::vector<std::string> args;
  std::vector<InputFile> files;
  Limits limits;
  // With an id, /output is this volume; without, a fresh per-job artifact
  // directory (when the runner has an artifacts root).
  VolumeMount volume;
  // The OCI runtime this job runs under: the tier's runtime if set, else the
  // language's, else "" (the service-wide sandbox.runtime, which
  // ContainerPolicy applies). "runc" or "runsc" otherwise.
  std::string runtime;
  // > 0: a writable tmpfs of this many bytes at /home/user (kHomeMount),
  // where the E2B SDKs expect their processes to start. It counts against
  // the memory limit like /tmp. 0: none.
  int64_t home_bytes = 0;
  // Python packages the request asked for ("packages": {"python": [...]}),
  // as checked requirements ("tabulate==0.9.0"); installed before the run,
  // outside the job (coderunner/packages/package_installer.h).
  std::vector<std::string> python_packages;
  // npm packages ("packages": {"npm": [...]}), likewise ("lodash@^4"); a
  // job has packages of one ecosystem at most.
  std::vector<std::string> npm_packages;
  // The layer they were installed as: a directory name under the packages
  // mount (kPackagesMount), linked into the workspace as kPackagesLink,
  // and its node_modules as kNodeModulesLink for npm's. "" = none.
  std::string package_layer;
  // "network": "allowlist": the hosts the job may reach through the
  // service's proxy (coderunner/egress/egress_proxy.h), which listens on
  // loopback inside its network namespace; it still has no interface
  // beyond loopback. None: no way out at all.
  std::optional<egress::EgressPolicy> egress;
  // The tenant whose jobs may follow this one in its container (the
  // tier's container_reuse: docs/security.md, "Container reuse"); "" = the
  // container serves this job alone (the default).
  std::string reuse_scope;
  // A pooled container's template only (WarmPool): its prestarted
  // interpreter loads the language's preload (isolation/prestart.h).
  bool preload = false;
};

// RunResult::runtime of a job that ran as a host process (NativeRunner).
inline constexpr char kRuntimeNative[] = "native";

enum class RunStatus { kSucceeded, kFailed, kTimeout, kOom, kCancelled, kError };

// "succeeded", "failed", "timeout", "oom", "cancelled", "error".
std::string_view RunStatusName(RunStatus status);

struct RunMetrics {
  int64_t wall_ms = 0;            // Whole handling, from Run() entry to result.
  int64_t run_ms = 0;             // The program itself, from exec to exit.
  int64_t cpu_ms = 0;             // CPU time of everything in the container.
  int64_t memory_peak_bytes = 0;  // Peak of the container's memory cgroup.
};

// The reason of a run whose compile step did not build the program.
inline constexpr char kReasonCompileError[] = "compile_error";

// How a compiled language's compile step went (compiling_runner.h).
struct CompileOutcome {
  RunStatus status = RunStatus::kError;  // kSucceeded when it built the program.
  int exit_code = -1;                    // -1 when it never exited on its own terms.
  int signal = 0;
  // The compiler's stdout, then its stderr: at most the language's
  // compile_output_bytes each.
  std::string output;
  bool output_truncated = false;
  RunMetrics metrics;
};

struct RunResult {
  RunStatus status = RunStatus::kError;
  int exit_code = -1;       // -1 when the program never exited on its own terms.
  int signal = 0;           // Signal that ended the program, 0 if none.
  std::string stdout_data;  // Raw bytes, at most limits.output_bytes.
  std::string stderr_data;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  std::string image;
  std::string image_digest;  // "sha256:..." of the image actually used.
  RunMetrics metrics;
  // Non-OK when status == kError, and when a bound on /output stopped the
  // job (status kFailed; reason e.g. "artifact_too_large").
  Status error;
  std::vector<Artifact> artifacts;             // Kept files of a per-job /output.
  std::vector<TreeProblem> artifacts_skipped;  // Entries of /output not kept, and why.
  // What /output used at the end against its bounds, bytes (allocated
  // blocks, a file at least its size); -1 if unknown.
  int64_t output_bytes = -1;
  // coderunner-init's trailer, carrying this run's nonce, reported how the
  // program ended. False when the end is only the engine's view (init was
  // killed, the container was stopped from outside) or the job never ran.
  bool reported_by_init = false;
  // The engine went away while the job ran and the end came from its
  // container's state once it returned: output after the loss never
  // arrived.
  bool output_lost = false;
  // How the job ran: "" in a container (the result JSON then says nothing),
  // kRuntimeNative as a host process (code_runner.runtime: native).
  std::string runtime;
  // A compiled language's compile step. When it did not build the program,
  // the program never ran: status kFailed with error reason
  // kReasonCompileError (or the step's own kCancelled or kError).
  std::optional<CompileOutcome> compile;
  // A job with `egress`: every request through its proxy.
  std::optional<egress::EgressLog> egress;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_JOB_SPEC_H_
