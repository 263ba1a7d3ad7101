// WarmPool: containers created and started ahead of their jobs, so that a
// job's critical path skips create, attach and start.
#ifndef CODERUNNER_ISOLATION_WARM_POOL_H_
#define CODERUNNER_ISOLATION_WARM_POOL_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/metrics.h"
#include "coderunner/common/status.h"
#include "coderunner/engine/containers.h"
#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/attached_container.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/isolation/pool_options.h"
#include "coderunner/isolation/reuse_lot.h"
#include "coderunner/isolation/uid_pool.h"
#include "coderunner/isolation/workspace.h"

namespace coderunner::isolation {

// A pooled container handed to one job. Owned by the job's runner until it
// gives it back with WarmPool::Retire. Not thread-safe.
struct PooledContainer {
  std::string id;                        // Engine container id.
  std::string slot;                      // "pool-<hex>": its name suffix and directories' name.
  std::unique_ptr<Workspace> workspace;  // Bound read-only at /workspace; holds the FIFO.
  // Host directory bound at /output; "" = none (or taken over by the job).
  std::string output_dir;
  OutputMount output;        // What init bounds /output to.
  std::string image_digest;  // Image id the container was created from.
  std::string language;
  int go_fd = -1;  // Write end of the workspace's "go" FIFO.
  std::unique_ptr<AttachedContainer> attach;
  std::chrono::steady_clock::time_point ready_at;
  bool container_removed = false;  // The runner removed it already.
  bool ran_job = false;            // "go" was sent: it exits on its own.
  bool started = false;            // The engine started it.
  int jobs_served = 0;             // Jobs it ran (more than one: container reuse).
  UidLease uid;                    // Its own uid, given back once the container is removed.
  ~PooledContainer();
};

// Keeps, per shape, a target number of idle containers, each created by
// ContainerPolicy with ContainerContext::pooled (same policy as a cold job:
// the create bodies differ only in labels and paths, which the shape key
// abstracts) and verified by inspecting it after start. A job is given a
// container only when its own create body, built the same way, has the
// same key, so nothing in its policy can differ. Each container serves
// exactly one job and is then removed. Targets rise on misses (up to
// max_per_shape) and fall back when a shape goes unused. Dead containers
// (their stream ended) and ones idle longer than max_idle_s are replaced.
//
// Container reuse: a job with a reuse_scope first takes a container an
// earlier job of the same scope and shape ran in (ReuseLot), which the
// runner gave back with Keep once init had proven it clean.
//
// Only jobs without a volume under runc are pooled: a volume is per job,
// and gVisor does not pass a host FIFO written after start into the
// sandbox. Everything else takes the cold path.
//
// Thread-safe. The engine client, policy and metrics must outlive it; Stop
// must be called before they go.
class WarmPool {
 public:
  using Clock = std::chrono::steady_clock;

  // `uids` (not owned, shared with the runner and the sandboxes) gives each
  // container its own uid.
  WarmPool(engine::ContainerClient& containers, const ContainerPolicy& policy, UidPool& uids,
           PoolOptions options, std::string workspace_root, std::string artifacts_root,
           ArtifactCaps caps, MetricsRegistry* metrics, std::chrono::milliseconds attach_bound);
  ~WarmPool();

  // Removes leftover slot directories of an earlier process, seeds one
  // shape per template job (its language's size), and starts the fill and
  // maintenance threads. Templates need only language, limits and runtime.
  void Start(const std::vector<JobSpec>& templates);
  // Stops the threads and removes every idle container. Containers handed
  // out are removed when retired. Idempotent.
  void Stop();

  // Whether `job` may run in a pooled container at all.
  bool Eligible(const JobSpec& job) const;
  // An idle container of `job`'s shape, or nullptr (a miss: the shape's
  // target rises, and an unknown shape is learned).
  std::unique_ptr<PooledContainer> Take(const JobSpec& job);
  // For a series (ContainerRunner::RunSeries): an idle container of
  // `job`'s shape, else one prepared now (blocking: about a cold job's
  // start). nullptr when the pool is stopped or none could be prepared.
  std::unique_ptr<PooledContainer> TakeOrPrepare(const JobSpec& job);
  // Gives back a used container: it, its FIFO and directories are removed
  // in the background.
  void Retire(std::unique_ptr<PooledContainer> container);
  // Container reuse: parks `container`, which just served `job` (whose
  // reuse_scope is set) and was proven clean, for the scope's next job of
  // the same shape (Take hands it only to such a job), for at most
  // pool.reuse_idle_ms. Retires it instead when it served
  // pool.reuse_max_jobs jobs, the lot is full or the pool is stopping.
  void Keep(const JobSpec& job, std::unique_ptr<PooledContainer> container);

  // True for a container (by its labels) that belongs to this pool, which
  // janitors and recovery must leave alone.
  bool Owns(const std::map<std::string, std::string>& labels) const;
  const std::string& token() const { return token_; }

  struct Stats {
    int idle = 0;     // Ready containers.
    int filling = 0;  // Being prepared.
    int target = 0;   // Sum of shape targets.
    int shapes = 0;
    uint64_t hits = 0, misses = 0, created = 0, fill_errors = 0;
    uint64_t replaced_dead = 0, replaced_idle = 0, rejected_policy = 0;
    uint64_t reused = 0;  // Jobs given a container an earlier job of their scope ran in.
    int parked = 0;       // Containers waiting for their scope's next job.
  };
  Stats GetStats() const;

  // The shape key of `job`: its pooled create body with labels and paths
  // abstracted. Exposed for tests.
  std::string KeyOf(const JobSpec& job) const;

 private:
  struct Shape {
    JobSpec spec;  // Template: language, limits, runtime.
    int base = 0;
    int target = 0;
    int filling = 0;
    std::deque<std::unique_ptr<PooledContainer>> idle;
    Clock::time_point last_used;
    Clock::time_point last_miss;
  };

  // What of a job shapes its pooled container, as a JobSpec with `id`.
  static JobSpec TemplateOf(const JobSpec& job, std::string id);
  void FillLoop();
  void MaintainLoop();
  // Prepares one container of `spec`; on success it is ready and verified.
  StatusOr<std::unique_ptr<PooledContainer>> Prepare(const JobSpec& spec);
  // Removes a container and its files now (blocking).
  void Destroy(std::unique_ptr<PooledContainer> c);
  // Queues a container (id or name) the engine could not be asked to remove
  // for the maintenance loop's retries, or for Stop's last try once stopping.
  void RememberUnremoved(const std::string& id_or_name);
  void UpdateGauges();  // Requires mu_.
  // At max_containers: retires one idle container of the least recently
  // used shape, unused since the last miss of a shape short of its
  // target, so that demand moves the pool's room to where it is. Requires
  // mu_.
  void MakeRoomLocked();
  // The container `job`'s reuse scope parked last for shape `key`, or
  // nullptr. Requires mu_.
  std::unique_ptr<PooledContainer> TakeParkedLocked(const JobSpec& job, const std::string& key);
  int TotalLocked() const;
  ContainerContext ContextFor(const JobSpec& job, const std::string& workspace,
                              const OutputMount& output) const;

  engine::ContainerClient& containers_;
  const ContainerPolicy& policy_;
  UidPool& uids_;
  const PoolOptions options_;
  const std::string workspace_root_;
  const std::string artifacts_root_;
  const ArtifactCaps caps_;
  MetricsRegistry* metrics_;
  const std::chrono::milliseconds attach_bound_;
  const std::string token_;
  // Prefix of the slot names (workspace, /output, container name).
  static constexpr const char* kSlotPrefix = "pool";

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool started_ = false;
  bool reaped_ = false;                  // Stop collected retired_: Retire destroys at once.
  std::map<std::string, Shape> shapes_;  // By key.
  std::deque<std::unique_ptr<PooledContainer>> retired_;
  ReuseLot parked_;  // Containers kept for their reuse scope's next job.
  // Containers whose removal failed because the engine was unreachable;
  // retried by the maintenance pass and at Stop.
  std::vector<std::string> undeleted_;
  std::vector<std::string> unremoved_at_stop_;
  Stats stats_;
  std::vector<std::thread> threads_;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_WARM_POOL_H_
