// LiveSandbox: one stateful sandbox's running container and the channel to
// the REPL driver inside it.
#ifndef CODERUNNER_SANDBOXES_LIVE_SANDBOX_H_
#define CODERUNNER_SANDBOXES_LIVE_SANDBOX_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/stream_demux.h"
#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/attached_container.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/init_trailer.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/isolation/output_watch.h"
#include "coderunner/isolation/uid_pool.h"
#include "coderunner/isolation/workspace.h"
#include "coderunner/sandboxes/cell_records.h"
#include "coderunner/sandboxes/marker_cut.h"
#include "coderunner/sandboxes/repl_driver.h"
#include "coderunner/sandboxes/sandbox_spec.h"
#include "coderunner/sandboxes/volume_guard.h"

namespace coderunner::egress {
class EgressProxy;  // coderunner/egress/egress_proxy.h
}  // namespace coderunner::egress

namespace coderunner::sandboxes {

class PackageGateway;  // package_gateway.h

// What one call returns.
struct CallResult {
  isolation::RunStatus status =
      isolation::RunStatus::kError;  // succeeded/failed/timeout/oom/error.
  int exit_code = -1;
  std::string stdout_data;
  std::string stderr_data;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  CellRecords cell;                // Rich results, taken out of stdout_data.
  int64_t wall_ms = 0;             // The call as the service saw it.
  int64_t run_ms = 0;              // The code itself, as the driver measured it.
  int64_t cpu_ms = -1;             // CPU of the call; -1 unknown.
  int64_t memory_peak_bytes = -1;  // The container's peak so far; -1 unknown.
  // The interpreter's state is gone: the container was replaced (a timeout
  // the driver could not interrupt, OOM, the driver exiting) or must be.
  bool state_lost = false;
  Status error;  // Non-OK with kError and when a bound on /output stopped the call.
  // /output broke a bound (files, bytes, depth) and was emptied so that a
  // new container could start.
  bool output_reset = false;
};

// Where a sandbox lives on the host and how its container is made.
struct SandboxLayout {
  std::string workspace_root;           // Holds <id>/ (bind-mounted read-only at /workspace).
  std::string output_root;              // Holds <id>/ (bind-mounted read-write at /output).
  isolation::ArtifactCaps output_caps;  // Bounds on /output (coderunner-init enforces them).
  // Where each sandbox's own uid comes from (one per sandbox, kept across
  // its container replacements); not owned, must outlive every sandbox.
  isolation::UidPool* uids = nullptr;
  // The service's guard on each sandbox's /output for its container's
  // whole life, calls and the time between them (not owned; null: none).
  isolation::OutputWatch* output_watch = nullptr;
  // Told the sandbox id when the watch stopped its container for a broken
  // bound, on the watch's thread (must not block): the owner settles the
  // sandbox (SettleBreach) under its call lock.
  std::function<void(const std::string& sandbox_id)> on_output_breach;
  // The service's package gateway: each sandbox listens on it while its
  // LiveSandbox lives, and gets its driver's pip or npm shims (not owned;
  // null: no packages on this service).
  PackageGateway* gateway = nullptr;
};

// Owns the container of one sandbox (one at a time: Restart replaces it),
// its workspace and /output directories, and the FIFO the service writes
// calls into. Replies come back on the container's attach stream: the driver
// ends each call with the same end markers coderunner-init writes for a
// pooled job, and MarkerCut delimits and caps each stream at them.
//
// Execute is serialized by the caller (SandboxManager holds a per-sandbox
// call lock); the attach thread feeds output concurrently, guarded here.
class LiveSandbox {
 public:
  // Creates the directories and starts a new container for `spec` (id,
  // language with the driver's command, limits, runtime; with a resolved
  // spec.volume, that volume is /output and `volume_dir` its host
  // directory) and `driver`. Engine failures keep their Status (Unavailable
  // when unreachable); everything created is removed again on failure.
  static StatusOr<std::unique_ptr<LiveSandbox>> Launch(engine::ContainerClient& containers,
                                                       const isolation::ContainerPolicy& policy,
                                                       const SandboxLayout& layout,
                                                       isolation::JobSpec spec, ReplDriver driver,
                                                       const std::string& volume_dir = "");

  // Re-attaches to the running container `container_id` of a sandbox whose
  // directories exist (after a restart of the service). NotFound if the
  // container or the directories are gone, FailedPrecondition if the
  // container is not running.
  static StatusOr<std::unique_ptr<LiveSandbox>> Adopt(engine::ContainerClient& containers,
                                                      const isolation::ContainerPolicy& policy,
                                                      const SandboxLayout& layout,
                                                      isolation::JobSpec spec, ReplDriver driver,
                                                      const std::string& container_id,
                                                      const std::string& volume_dir = "");

  // Detaches; the container and directories stay (see Destroy).
  ~LiveSandbox();
  LiveSandbox(const LiveSandbox&) = delete;
  LiveSandbox& operator=(const LiveSandbox&) = delete;

  // Writes `files` under /workspace (replacing same-named ones), runs `code`
  // with `timeout_ms`, and collects the reply. A call the driver cannot end
  // (or a dead driver) replaces the container: state_lost is then true.
  // Not for concurrent use. `on_output` (may be null) sees the output as
  // it comes (CallOutputFn).
  CallResult Execute(const std::vector<isolation::InputFile>& files, const std::string& code,
                     int64_t timeout_ms, const CallOutputFn& on_output = nullptr);

  // Removes the container and both directories. Idempotent; returns the
  // engine's error if the container could not be removed (Unavailable: try
  // again later).
  Status Destroy();

  // The files under /output with size and SHA-256 (hashes cached by size
  // and mtime). Symlinks and special files are left out.
  std::vector<isolation::Artifact> ListOutput();
  // Opens the file at `path` below /output for reading (see OpenTreeFile).
  StatusOr<isolation::UniqueFd> OpenOutputFile(const std::string& path);

  const std::string& container_id() const { return container_id_; }
  // What it was launched for, its id included.
  const isolation::JobSpec& spec() const { return spec_; }
  // The uid its containers run as (kept across replacements).
  int64_t uid() const { return uid_; }
  // Whether the container is still serving (its stream has not ended).
  bool alive() const;
  // With "network": "allowlist": the requests through its proxy since the
  // last drain (a call's), and the bytes so far; none without. Thread-safe.
  std::optional<egress::EgressLog> DrainEgress();

  // After the watch stopped the container for a broken bound: removes it,
  // brings /output back within its bounds (empties the sandbox's own,
  // rolls a volume back to the end of the last call) and returns the bound;
  // "" (nothing done) when the watch found nothing. The next call starts a
  // new container (state_lost). Not for concurrent use with Execute.
  std::string SettleBreach();

 private:
  // The reply streams of one call, each cut at the call's end marker.
  struct CallStreams {
    MarkerCut out;
    MarkerCut err;
    const CallOutputFn* on_output = nullptr;
    size_t out_sent = 0;  // Bytes of out's settled output given to on_output.
    size_t err_sent = 0;
  };
  // Gives `io`'s on_output what `stream` settled since it last did.
  static void SendSettled(CallStreams& io, bool is_stderr);

  LiveSandbox(engine::ContainerClient& containers, const isolation::ContainerPolicy& policy,
              SandboxLayout layout, isolation::JobSpec spec, ReplDriver driver);
  Status StartContainer();
  Status AttachTo(const std::string& id);
  // Opens the existing FIFO (a re-adopted sandbox's).
  Status OpenChannel();
  // Replaces the FIFO with a fresh, empty one the driver may open.
  // Listens on the package gateway for this sandbox (after a restart too),
  // first writing its shims into a new workspace when `write_shims`.
  Status OpenGateway(bool write_shims);
  // Opens the proxy of a sandbox with egress in `state`'s namespace.
  Status OpenEgress(const engine::ContainerState& state);
  Status NewChannel();
  void RemoveContainer();
  // Starts the service's watch on /output for the current container.
  void WatchOutput();
  // The bound the watch found broken on the current container; "" none.
  std::string OutputBreach() const;
  // Whether the watch found a bound broken on the current container or on
  // one removed since /output was last settled.
  bool Breached() const;
  // Replaces a broken container; the reason goes to the log.
  Status Restart(const std::string& why);
  // Empties /output if it breaks a bound (coderunner-init would stop a new
  // container at once otherwise), or if the watch found one broken: what a
  // stopped writer left is what it wrote past the bound, even when it fits
  // by the time it is counted again. True if it did.
  bool ResetOutputIfOverBounds();
  // Runs one call. When it broke the container, sets `*restart_why` and
  // leaves the replacement to the caller: a volume's over-quota writes must be
  // rolled back first, or coderunner-init stops the new container at once.
  CallResult Call(const std::vector<isolation::InputFile>& files, const std::string& code,
                  int64_t timeout_ms, const CallOutputFn& on_output, std::string* restart_why);
  // Sends `frame` and waits for the reply in `io` until `deadline` plus
  // the driver's grace (then a SIGINT when the driver takes one). Sets
  // `*written` to how the frame was written; true if the reply ended.
  bool Converse(CallStreams& io, const std::string& frame,
                std::chrono::steady_clock::time_point deadline, Status* written);
  // Fills `r` and `*restart_why` for a call that got no reply: the frame
  // was not taken (`written`), the driver is stuck, or it died (`trailer`,
  // init's, if it wrote one, else the engine's view).
  void ExplainBrokenCall(const Status& written,
                         const std::optional<isolation::InitTrailer>& trailer, CallResult& r,
                         std::string* restart_why);
  // Volume-backed /output: rolls back what was written since the last
  // settled point if it breaks the quota or the watch found it broken (and
  // forgets cached hashes). True if it did.
  bool RollBackVolume();
  bool OnChunk(std::string_view chunk);
  Status WriteFrame(const std::string& frame, std::chrono::steady_clock::time_point deadline);

  engine::ContainerClient& containers_;
  const isolation::ContainerPolicy& policy_;
  const SandboxLayout layout_;
  const isolation::JobSpec spec_;
  const ReplDriver driver_;
  std::unique_ptr<isolation::Workspace> workspace_;
  // The uid its containers run as: its lease, or its volume's uid.
  int64_t uid_ = isolation::kJobUid;
  isolation::UidLease uid_lease_;  // Given back by Destroy once the container is gone.
  std::string output_dir_;         // Host side of /output.
  bool own_output_ = true;         // output_dir_ is ours (not a persistent volume's).
  std::string container_id_;
  // Replaced containers the engine would not remove: Destroy tries again.
  std::vector<std::string> unremoved_containers_;
  std::unique_ptr<isolation::AttachedContainer> attach_;
  // The current container's /output watch; ended once it is removed.
  std::unique_ptr<isolation::OutputWatch::Handle> watch_;
  // The bound it found broken, kept from a removed container's watch until
  // /output is settled (Restart, SettleBreach).
  std::string removed_breach_;
  int channel_fd_ = -1;

  // Output of the current call; guarded by feed_mu_ (the attach thread
  // feeds it). The demuxer lives across calls: frames may straddle chunks.
  std::mutex feed_mu_;
  std::condition_variable feed_cv_;
  std::unique_ptr<engine::StreamDemuxer> demux_;
  CallStreams* current_ = nullptr;
  bool call_ended_ = false;
  bool output_reset_ = false;  // Since the last Execute returned.
  // Keeps a volume-backed /output within its quota; null for our own
  // /output. Settled at launch, adoption and the end of each call.
  std::unique_ptr<VolumeGuard> volume_guard_;
  // Its current container's proxy, with "network": "allowlist".
  std::mutex egress_mu_;
  std::unique_ptr<egress::EgressProxy> egress_;

  struct HashEntry {
    int64_t size;
    int64_t modified_ms;
    std::string sha256;
  };
  std::map<std::string, HashEntry> hashes_;
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_LIVE_SANDBOX_H_
