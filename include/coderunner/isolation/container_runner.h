// ContainerRunner: runs one job in a fresh container, end to end.
#ifndef CODERUNNER_ISOLATION_CONTAINER_RUNNER_H_
#define CODERUNNER_ISOLATION_CONTAINER_RUNNER_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/stream_demux.h"
#include "coderunner/isolation/attached_container.h"
#include "coderunner/isolation/cancel_token.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/init_trailer.h"
#include "coderunner/isolation/job_output.h"
#include "coderunner/isolation/job_runner.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/isolation/output_snapshot.h"
#include "coderunner/isolation/output_watch.h"
#include "coderunner/isolation/uid_pool.h"
#include "coderunner/isolation/warm_pool.h"
#include "coderunner/isolation/workspace.h"

namespace coderunner::egress {
class EgressProxy;  // coderunner/egress/egress_proxy.h
}  // namespace coderunner::egress

namespace coderunner::isolation {

struct RunnerOptions {
  std::string workspace_root;  // Host directory holding per-job workspaces.
  // Host directory holding per-job /output directories, which stay behind
  // as the jobs' artifacts. "" = jobs without a volume get no /output.
  std::string artifacts_root;
  ArtifactCaps artifact_caps;
  // How long to wait for a killed container's stream to close before giving
  // up on it (its removal still follows).
  std::chrono::milliseconds kill_grace{10000};
  // How long coderunner-init gets to stop a job past its deadline (and
  // check /output) before the container is killed outright.
  std::chrono::milliseconds stop_grace{2000};
  // Bound on establishing the attach stream.
  std::chrono::milliseconds attach_timeout{10000};
  // How long a job whose engine went away while it ran waits for the
  // engine to return, to take its end from the container as crash recovery
  // does (jobs.engine_retry_s); past it the job is an engine_unavailable
  // error.
  std::chrono::milliseconds engine_return_wait{30000};
  // Where each container's own uid comes from; not owned, shared with the
  // warm pool and the sandboxes (main wires one). nullptr: the runner
  // keeps a pool of its own over the default range (tests).
  UidPool* uids = nullptr;
  // The service's own guard on each job's /output while it runs (not
  // owned; main wires one for the runner and the sandboxes). nullptr:
  // only coderunner-init's walk and the final measurement (tests).
  OutputWatch* output_watch = nullptr;
};

// Sequence per job: workspace (and /output) → create → (runtime check) →
// attach → start → stream until the output closes or the wall-clock deadline
// (then stop) → inspect → remove → collect artifacts. The container and
// workspace are removed on every path; a per-job /output directory stays
// only when it holds artifacts of a job that ran.
//
// Warm pool: with a pool set, a job the pool finds eligible takes a
// pre-started container of exactly its shape when one is idle: its files
// are written into the container's workspace, a "go" message starts it,
// and the used container is removed in the background (before the result
// only when init's trailer is missing). Otherwise the cold path above runs.
//
// Runtime check: when the job has an OCI runtime (ContainerPolicy::RuntimeOf),
// the created container is asked which runtime the engine will really use;
// any other answer ends the job, unstarted, as kError with reason
// "runtime_not_applied", so a job configured for gVisor never runs under runc.
//
// Thread-safe: any number of Run calls may proceed at once. Does not own the
// client or policy, which must outlive it.
class ContainerRunner : public JobRunner {
 public:
  ContainerRunner(engine::ContainerClient& containers, const ContainerPolicy& policy,
                  RunnerOptions options);

  // Runs `job`. A job that was attempted always yields a RunResult, with
  // status kError and `error` set for our own or the engine's failures.
  // Returns a non-OK Status only when the engine could not be reached at all
  // (Unavailable), so the job never ran and the caller may answer 503.
  StatusOr<RunResult> Run(const JobSpec& job, const RunHooks& hooks = {}) override;

  // With a pool: the cases run one after another in one pooled container
  // (go mode "more", then "last"), each a fresh process; coderunner-init
  // clears what each left before the next may start, and the series stops
  // early (for the caller to run the rest one by one) when it could not,
  // or when a case's end did not come from init. Only when every case
  // fits the same pooled container shape, and only under runc.
  size_t RunSeries(const JobSpec& program, const std::vector<SeriesCase>& cases,
                   const RunHooks& hooks, const SeriesGoOn& go_on) override;

  // Uses `pool` (nullptr: none) for eligible jobs from now on. Call before
  // the first Run; the pool must outlive this runner's use of it.
  void set_pool(WarmPool* pool) { pool_ = pool; }

 private:
  using Clock = std::chrono::steady_clock;
  // How one container's run went, as Supervise saw it.
  struct Supervised {
    Status failure;  // Attach, start or go failed.
    bool timed_out = false;
    bool cancelled = false;
    bool started = false;  // The engine started the container.
    Clock::time_point run_start;
    Clock::time_point run_end;
  };
  // What the service found on /output once the job's processes were gone.
  struct OutputVerdict {
    std::string violation;     // The bound broken (the watch's or the last walk's); "" none.
    bool rolled_back = false;  // The service undid a volume's run.
    int64_t used_bytes = -1;   // What /output held at the end, after any undo; -1 unknown.
  };
  // Everything BuildResult needs besides the output.
  struct Finished {
    Supervised sv;
    bool stream_done = false;
    Status stream_status;          // How the attach call ended.
    engine::ContainerState state;  // From inspect, when it was needed.
    Status inspected;
    std::string image_digest;
    // The nonce init was given: only a trailer carrying it is init's (the
    // job can print trailer-shaped lines of its own).
    std::string nonce;
    OutputVerdict verdict;
  };

  // A pooled job's end without init's trailer (init killed, the engine
  // away): the engine's view into `f`, and the container removed before
  // /output is touched. Returns whether the engine was lost meanwhile.
  bool EndUntrailed(const JobSpec& job, PooledContainer& c, bool stream_done, const RunHooks& hooks,
                    Finished& f);
  // A pooled container after its job: kept for its reuse scope's next job
  // when it `serves_again` and its workspace could be emptied; else its
  // /output adopted as the job's artifacts (a job that ran) and retired.
  void GiveBack(const JobSpec& job, std::unique_ptr<PooledContainer> warm, bool serves_again,
                RunResult& result);
  // Container reuse: whether a pooled container whose job (of a reuse
  // scope) ended as `f` and `result` say, with init's `trailer`, may serve
  // the scope's next job.
  static bool ServesAgain(const InitTrailer& trailer, const Finished& f, const RunResult& result);

  // What a cold job's container needs before it is created.
  struct ColdSetup {
    UidLease lease;  // Empty for a volume's job (the volume's uid).
    int64_t uid = kJobUid;
    OutputMount output;
    std::string output_dir;  // Host directory of a per-job /output; "" = none.
    // A volume as it was before the run, recorded by the service.
    std::optional<OutputSnapshot> volume_before;
    std::unique_ptr<Workspace> ws;
    void DiscardOutput();  // Paths that end without a run leave no artifacts.
  };
  // Leases the uid, creates /output and the workspace with the job's files.
  StatusOr<ColdSetup> PrepareCold(const JobSpec& job);
  StatusOr<RunResult> RunCold(const JobSpec& job, const RunHooks& hooks);
  // How a started container ended, as far as the engine tells.
  struct ContainerEnd {
    engine::ContainerState state;  // From inspect, when it was needed.
    Status inspected = InternalError("not inspected");
    Status stream_status;      // How the attach call ended (OK once the engine loss was bridged).
    bool engine_lost = false;  // The end came from the container after an engine loss.
  };
  // Once the attach stream is done: inspects container `id` (when
  // `inspect`), and if the engine went away meanwhile, takes the end from
  // the container once it returns (AwaitEndAfterEngineLoss).
  ContainerEnd LearnEnd(const JobSpec& job, const std::string& id, const AttachedContainer& attach,
                        bool inspect, Supervised& sv, const RunHooks& hooks);
  // The engine went away while container `id` ran (`stream`, how the
  // attach call ended, or `inspected` could not reach it): waits up to
  // options_.engine_return_wait (or a cancel) for the engine to return,
  // then for the container to end, stopping it at the job's deadline
  // (from sv.run_start; sv.timed_out is then set). The container's state
  // then; std::nullopt when the engine never returned or lost it.
  std::optional<engine::ContainerState> AwaitEndAfterEngineLoss(const JobSpec& job,
                                                                const std::string& id,
                                                                Supervised& sv,
                                                                const RunHooks& hooks);
  // Starts the service's watch on `output` for container `id` (nullptr
  // without a watch or an /output): a breach kills the container.
  std::unique_ptr<OutputWatch::Handle> WatchOutput(const JobSpec& job, const OutputMount& output,
                                                   const std::string& id);
  // Once nothing of the job runs any more: ends `watch` (may be null),
  // measures /output itself, and undoes a volume's run that broke a bound
  // (from `before`, the service's own record of it; null: no undo).
  OutputVerdict SettleOutput(const JobSpec& job, const OutputMount& output,
                             std::unique_ptr<OutputWatch::Handle> watch,
                             const OutputSnapshot* before);
  // Ends a cold job whose container `id` was created but must not start
  // (`why`): removes it and the workspace. Returns `why` itself when the
  // engine is unreachable, else a kError result.
  StatusOr<RunResult> AbandonUnstarted(const JobSpec& job, const std::string& id, ColdSetup& c,
                                       Status why, Clock::time_point t0);
  StatusOr<RunResult> RunPooled(const JobSpec& job, const RunHooks& hooks,
                                std::unique_ptr<PooledContainer> warm);
  // How one case of a series went in pooled container `c`.
  struct SeriesStep {
    std::optional<RunResult> result;  // None: init did not report it (run it elsewhere).
    bool reusable = false;            // The next case may run in `c`.
  };
  // Runs case `job` in `c`, whose workspace holds the program; `last`: no
  // case follows it there.
  SeriesStep RunSeriesCase(const JobSpec& job, bool last, const RunHooks& hooks,
                           PooledContainer& c);
  // Waits for the stream (cold path), calls `start`, then waits for the
  // end, the deadline or a cancel, and stops the container on the latter
  // two (SIGUSR1 to init, then SIGKILL).
  Supervised Supervise(const JobSpec& job, const RunHooks& hooks, AttachedContainer& attach,
                       const std::function<Status()>& start, bool wait_for_attach);
  static Status WriteJobFiles(const JobSpec& job, Workspace& ws);
  // A cold run's end: its per-job /output collected into `result`, or
  // discarded when the job was cancelled or failed to run; the wall time.
  RunResult KeepOrDiscardOutput(const JobSpec& job, ColdSetup& c, RunResult result,
                                Clock::time_point t0);
  // Starts cold container `id`; for a job with egress, then opens its
  // proxy into `proxy`, which init waits for before the job starts.
  Status StartCold(const JobSpec& job, const std::string& id,
                   std::unique_ptr<egress::EgressProxy>& proxy);
  // Inspect, after waiting for a still-running container to settle.
  StatusOr<engine::ContainerState> InspectSettled(const std::string& id);
  void CollectInto(const JobSpec& job, const std::string& dir, RunResult& result);
  // The pool slot's /output becomes the job's artifact directory (when the
  // slot has one), then its artifacts are collected into `result`.
  void AdoptPoolOutput(const JobSpec& job, PooledContainer& c, RunResult& result);
  RunResult BuildResult(const JobSpec& job, const OutputMount& output, JobOutput& io,
                        const Finished& f, Clock::time_point t0);

  // OK if the engine runs container `id` under `runtime`; FailedPrecondition
  // "runtime_not_applied" naming both runtimes if not; the engine's error
  // if it cannot tell.
  Status CheckRuntime(const std::string& id, const std::string& runtime);

  engine::ContainerClient& containers_;
  const ContainerPolicy& policy_;
  RunnerOptions options_;
  std::unique_ptr<UidPool> own_uids_;  // When options_.uids was nullptr.
  UidPool* uids_;
  WarmPool* pool_ = nullptr;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_CONTAINER_RUNNER_H_
