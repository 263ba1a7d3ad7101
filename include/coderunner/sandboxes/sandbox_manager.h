// SandboxManager: the stateful sandboxes of every tenant.
#ifndef CODERUNNER_SANDBOXES_SANDBOX_MANAGER_H_
#define CODERUNNER_SANDBOXES_SANDBOX_MANAGER_H_

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/auth/authenticator.h"
#include "coderunner/common/metrics.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/safe_tree.h"
#include "coderunner/packages/package_installer.h"
#include "coderunner/sandboxes/live_sandbox.h"
#include "coderunner/sandboxes/sandbox_record.h"
#include "coderunner/sandboxes/sandbox_spec.h"
#include "coderunner/sandboxes/sandbox_store.h"
#include "coderunner/volumes/volume_service.h"

namespace coderunner::sandboxes {

// The reasons SandboxManager's errors carry.
inline constexpr char kReasonSandboxBusy[] = "sandbox_busy";  // A call is already running (409).
inline constexpr char kReasonSandboxNotRunning[] = "sandbox_not_running";  // Ended (409).
inline constexpr char kReasonSandboxNotFound[] = "sandbox_not_found";      // 404.
inline constexpr char kReasonSandboxLimit[] = "sandbox_limit";  // Tier's count or memory (429).

// The answer to one execute call.
struct ExecuteOutcome {
  CallResult result;
  std::vector<isolation::Artifact> files;  // Everything under /output now.
  SandboxRecord record;                    // After the call.
  // With "network": "allowlist": the requests through its proxy since the
  // last call, and the bytes so far.
  std::optional<egress::EgressLog> egress;
};

// Where more processes run in a sandbox than its interpreter (E2B's process
// and filesystem calls): its current container, as its uid, with the host
// directory the container sees read-only at /workspace, for staging what
// such a process reads; and the environment the sandbox was created with.
struct ExecTarget {
  std::string container_id;
  std::string user;           // "uid:gid".
  std::string workspace_dir;  // On the host.
  std::map<std::string, std::string> envs;
};

// Creates, serves, lists, expires and deletes sandboxes, tenant-scoped (a
// sandbox of another tenant is NotFound). Records are durable (SandboxStore);
// containers outlive the service and are re-adopted by Start(). Calls to one
// sandbox are serialized; different sandboxes run in parallel. All public
// methods are thread-safe. `config`, `containers`, `policy`, `store` and
// `metrics` must outlive the manager.
class SandboxPool;

class SandboxManager {
 public:
  // `volumes` (may be null: no volumes in sandboxes) resolves volume_id.
  SandboxManager(const config::Config& config, engine::ContainerClient& containers,
                 const isolation::ContainerPolicy& policy, SandboxStore& store,
                 MetricsRegistry* metrics, SandboxLayout layout,
                 volumes::VolumeService* volumes = nullptr,
                 packages::PackageInstaller* installer = nullptr);
  ~SandboxManager();

  // Loads the records, re-attaches to the containers of running sandboxes
  // (one whose container is gone becomes stopped), removes this instance's
  // sandbox containers nobody owns, and starts the expiry thread.
  void Start();
  // Stops the expiry thread and detaches from every container, after the
  // calls in progress; the containers keep running for the next start.
  void Stop();

  // Starts the sandbox `create` (validated for `who`'s tier). Over the
  // tier's count or memory cap: ResourceExhausted "sandbox_limit" naming
  // the cap and the tier. Engine errors keep their Status.
  StatusOr<SandboxRecord> Create(const auth::Principal& who, SandboxCreateSpec create);
  StatusOr<SandboxRecord> Get(const std::string& tenant, const std::string& id);
  // Sandbox `id` whichever its tenant, for a caller that proves its right
  // otherwise (an E2B access token, see SandboxRecord). NotFound
  // "sandbox_not_found".
  StatusOr<SandboxRecord> Lookup(const std::string& id);
  // Newest first; filters are optional.
  std::vector<SandboxRecord> List(const std::string& tenant, std::optional<SandboxState> state,
                                  const std::string& language);
  // Runs `call` in the sandbox. A timeout over the tier's maximum:
  // FailedPrecondition "limit_exceeded"; a sandbox not running:
  // "sandbox_not_running"; another call holding it past the wait:
  // "sandbox_busy".
  StatusOr<ExecuteOutcome> Execute(const auth::Principal& who, const std::string& id,
                                   const SandboxCallSpec& call);
  // The running sandbox's ExecTarget. NotFound "sandbox_not_found",
  // FailedPrecondition "sandbox_not_running". Counts as a use (its TTL
  // starts again).
  StatusOr<ExecTarget> ExecTargetOf(const std::string& tenant, const std::string& id);
  // A running sandbox lives `ttl_s` from now (and after each later use), at
  // most the tier's max_sandbox_ttl_s: FailedPrecondition "limit_exceeded"
  // past it.
  StatusOr<SandboxRecord> SetTtl(const auth::Principal& who, const std::string& id, int64_t ttl_s);
  // Installs `names` (packages::CheckPackageRequest) into sandbox `id` for
  // the rest of its life, with what it installed before (a name given again
  // takes its new version): one set, installed outside the sandbox by the
  // service's installer under the tier's policy, then linked into its
  // workspace, where the next import or require finds it. What `pip
  // install` and `npm install` inside the sandbox ask for through the
  // package gateway. The sandbox's language takes one ecosystem (python:
  // python; javascript, typescript: npm): InvalidArgument
  // "invalid_request" otherwise; "packages_unavailable" on a service
  // without packages; the installer's errors. Blocks for the install.
  StatusOr<packages::InstalledSet> AddPackages(const auth::Principal& who, const std::string& id,
                                               packages::Ecosystem ecosystem,
                                               const std::vector<std::string>& names);
  // Removes the container, files and record (after a call in progress).
  Status Delete(const std::string& tenant, const std::string& id);
  // A file under the sandbox's /output (see OpenTreeFile).
  StatusOr<isolation::UniqueFd> OpenFile(const std::string& tenant, const std::string& id,
                                         const std::string& path);
  // The files under /output of a running sandbox ([] otherwise).
  StatusOr<std::vector<isolation::Artifact>> Files(const std::string& tenant,
                                                   const std::string& id);

  // Expires what is due at `now_ms` and forgets old expired/stopped records;
  // returns how many sandboxes expired. Called by the expiry thread.
  int ExpireDue(int64_t now_ms);

 private:
  struct Entry {
    std::timed_mutex call_mu;           // Held for a call, a removal or an expiry.
    SandboxRecord record;               // Guarded by the manager's mu_.
    std::unique_ptr<LiveSandbox> live;  // Guarded by call_mu.
    isolation::JobSpec spec;            // Immutable after creation.
    ReplDriver driver;                  // Immutable after creation.
    std::string volume_dir;             // Host directory of its volume; "" = none. Immutable.
    int64_t uid = 0;                    // Its containers' uid, once one ran; guarded by mu_.
    bool gone = false;                  // Deleted; guarded by mu_.
    std::mutex packages_mu;             // Held for an install into it.
    // Keeps its packages' layer on disk while it runs; guarded by mu_.
    std::shared_ptr<void> package_hold;
  };

  // The tenant's sandbox `id`; NotFound "sandbox_not_found" otherwise.
  StatusOr<std::shared_ptr<Entry>> Find(const std::string& tenant, const std::string& id);
  // Waits up to 30 s for the sandbox's call lock; FailedPrecondition
  // "sandbox_busy" past it.
  // Adopts the running container of `e` if startup could not (the engine
  // was away); stops the sandbox if it cannot be adopted. Returns only an
  // unreachable engine's error. Requires the call lock, not mu_.
  Status ReattachLate(Entry& e);
  static StatusOr<std::unique_lock<std::timed_mutex>> LockCall(Entry& e, const std::string& id);
  void Persist(const SandboxRecord& record);
  // Counts `e` (its record filled in) against its tenant's tier and enters
  // it; ResourceExhausted "sandbox_limit" over the tier's bounds.
  Status Reserve(const auth::Principal& who, const std::shared_ptr<Entry>& e);
  // With sandbox.ready_sandboxes, starts launching sandboxes ahead.
  void StartPool();
  void UpdateGauges();  // Requires mu_.
  // AddPackages on `e`, and the gateway's answer for sandbox `id`
  // (sandbox_packages.cc).
  StatusOr<packages::InstalledSet> InstallInto(Entry& e, packages::Ecosystem ecosystem,
                                               const std::vector<std::string>& names);
  nlohmann::json GatewayAnswer(const std::string& id, const std::string& ecosystem,
                               const std::vector<std::string>& names);
  StatusOr<isolation::JobSpec> SpecOf(const SandboxRecord& record, ReplDriver* driver) const;
  // The record of a new sandbox `who` asked for with `req`, its container's
  // spec being `spec`, created at `now_ms`.
  static SandboxRecord RecordOf(const auth::Principal& who, const SandboxCreateSpec& req,
                                const isolation::JobSpec& spec, int64_t now_ms);
  // Fills spec->volume from spec->volume.id (tenant-checked; `tier` may be
  // null after a restart) and returns the volume's host directory ("" when
  // there is no volume).
  StatusOr<std::string> ResolveVolume(const std::string& tenant, const config::TierConfig* tier,
                                      isolation::JobSpec* spec);
  void ExpiryLoop();
  // The watch stopped sandbox `id`'s container (its own thread; see
  // SandboxLayout::on_output_breach): settle it soon.
  void OnOutputBreach(const std::string& id);
  // Settles every sandbox whose container the watch stopped and that no
  // call holds (a call in progress settles its own, see LiveSandbox::Execute).
  // True when none is left waiting. (sandbox_breaches.cc)
  bool SettleBreaches();

  const config::Config& config_;
  engine::ContainerClient& containers_;
  const isolation::ContainerPolicy& policy_;
  SandboxStore& store_;
  MetricsRegistry* metrics_;
  SandboxLayout layout_;  // Set at construction (on_output_breach too), then only read.
  volumes::VolumeService* volumes_;
  packages::PackageInstaller* installer_;
  // With an installer: each running sandbox's socket for its shims.
  std::unique_ptr<PackageGateway> gateway_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  std::set<std::string> breached_;  // Ids OnOutputBreach named, not settled yet.
  bool stopping_ = false;
  std::thread expiry_;
  // Sandboxes launched ahead (null: sandbox.ready_sandboxes is 0).
  std::unique_ptr<SandboxPool> pool_;
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_SANDBOX_MANAGER_H_
