// NativeRunner: runs one job as a host process, without a container
// (code_runner.runtime: native, allowed only with security.mode: permissive).
#ifndef CODERUNNER_ISOLATION_NATIVE_RUNNER_H_
#define CODERUNNER_ISOLATION_NATIVE_RUNNER_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/isolation/job_runner.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/isolation/uid_pool.h"

namespace coderunner::isolation {

// The job's program could not be started (interpreter not found, exec
// failed, fork failed, its temporary directory could not be made).
inline constexpr char kReasonNativeSpawnFailed[] = "native_spawn_failed";

// The whole environment of a native job besides HOME and TMPDIR (its own
// directory).
inline constexpr char kNativePath[] = "/usr/local/bin:/usr/bin:/bin";
inline constexpr char kNativeLang[] = "C.UTF-8";

struct NativeRunnerOptions {
  // Where each job's own temporary directory is made (mkdtemp, then mode
  // 0700 and owned by the job's uid). Must be an existing directory every
  // job uid can traverse. Default "/tmp".
  std::string temp_root = "/tmp";
  // RLIMIT_NOFILE of the job, soft = hard (config sandbox.nofile).
  int64_t nofile = 1024;
  // After the program ended or was killed: how long to wait for its output
  // pipes to close before the rest is dropped (a process that escaped the
  // kill still holds them).
  std::chrono::milliseconds drain_grace{2000};
  // Where each job's own uid comes from when the service runs as root; not
  // owned, shared with everything else that leases uids. nullptr: the
  // runner keeps a pool of its own over the default range.
  UidPool* uids = nullptr;
};

// Per job:
//  1. Its own EMPTY temporary directory under temp_root (0700, owned by the
//     job's uid) is its working directory, HOME and TMPDIR. It holds the
//     program file (LanguageSpec::file), the request's input files (0640,
//     the service's, readable through the job's group) and nothing else
//     (stdin is opened, then unlinked). Native jobs have no /output: their
//     results carry no artifacts.
//  2. The language's command runs as a host process ("{file}" is the
//     program's absolute path; the first word is looked up in kNativePath),
//     with the environment PATH=kNativePath, HOME and TMPDIR = the
//     directory, LANG=kNativeLang and nothing else, in a session and
//     process group of its own, all signals at their defaults.
//  3. Rlimits: RLIMIT_CPU = cpu_ms rounded up to seconds (hard one more),
//     RLIMIT_DATA = memory_bytes, and RLIMIT_AS = memory_bytes too except
//     for V8 runtimes (node, tsx: they reserve far more address space than
//     they use and do not start under it), RLIMIT_FSIZE = tmp_bytes,
//     RLIMIT_NOFILE = options.nofile, RLIMIT_CORE = 0, and when the service
//     runs as root RLIMIT_NPROC = pids (not otherwise: it would count the
//     service's own threads). limits.cpus is not applied.
//  4. As root: a uid leased from the pool per job (gid the same number, no
//     supplementary groups), so RLIMIT_NPROC and the final kill are per job.
//     Otherwise the service's own uid. Never uid 0. no_new_privs is set,
//     and the program gets SIGKILL if the service dies.
//  5. At the wall-clock deadline (limits.timeout_ms) or a cancel the whole
//     process group is SIGKILLed; when the program exits on its own the
//     group is killed too, so nothing it started lingers. As root every
//     process of the job's uid is killed as well (also those that left the
//     group with setsid).
//  6. stdout and stderr are read from pipes and capped at
//     limits.output_bytes each, as in a container.
//  7. The directory is removed on every path.
//
// Result: status kSucceeded/kFailed by exit code; kTimeout at the deadline
// or when the CPU limit killed it (SIGXCPU, or SIGKILL at the CPU limit);
// kCancelled; kError with kReasonNativeSpawnFailed when it could not start.
// A job over its memory limit sees allocations fail (MemoryError, a V8
// fatal error) and ends kFailed: native jobs are never kOom. Metrics come
// from wait4's rusage: cpu_ms of the program and the children it waited
// for, memory_peak_bytes their largest resident set. `runtime` is
// kRuntimeNative, `image` and `image_digest` are empty. Jobs naming a
// volume are not supported (the caller refuses them).
//
// Thread-safe: any number of Run calls may proceed at once.
class NativeRunner : public JobRunner {
 public:
  explicit NativeRunner(NativeRunnerOptions options);
  ~NativeRunner() override;

  // Runs `job` as described above. Never returns a non-OK Status: every
  // failure is a RunResult with status kError.
  StatusOr<RunResult> Run(const JobSpec& job, const RunHooks& hooks = {}) override;

 private:
  NativeRunnerOptions options_;
  std::unique_ptr<UidPool> own_uids_;  // When options_.uids was nullptr.
  UidPool* uids_;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_NATIVE_RUNNER_H_
