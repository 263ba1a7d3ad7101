// JobJanitor: periodic housekeeping while the service runs.
#ifndef CODERUNNER_SRC_JOBS_JOB_JANITOR_H_
#define CODERUNNER_SRC_JOBS_JOB_JANITOR_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/isolation/warm_pool.h"
#include "coderunner/store/job_store.h"

namespace coderunner::jobs {

struct JanitorReport {
  int containers_removed = 0;
  int workspaces_removed = 0;
  int artifacts_removed = 0;  // Artifact directories without a job.
  int jobs_purged = 0;
  int cache_purged = 0;
};

// What a JobJanitor works with. Non-owning: every pointee outlives the
// janitor and is thread-safe. The required ones must not be null.
struct JobJanitorDeps {
  // instance, workspace_dir, artifacts.dir, jobs.janitor_interval_s (s),
  // jobs.retention_s (s).
  const config::Config* config = nullptr;
  store::JobStore* store = nullptr;  // Purged of old records and cache entries.
  engine::ContainerClient* containers = nullptr;
  // The warm pool, whose containers the janitor leaves alone; nullptr when
  // there is none.
  const isolation::WarmPool* pool = nullptr;
};

// Every jobs.janitor_interval_s: removes containers labelled with this
// instance and job workspaces that no executing job owns, purges terminal
// records older than jobs.retention_s with their artifacts, artifact
// directories of unknown jobs, and expired cache entries.
// Thread-safe; Start/Stop from one thread.
class JobJanitor {
 public:
  // The ids of the jobs executing right now (JobExecutor::Active); a job's
  // compile step (isolation::OwningJobId) is the job's. Called from the
  // janitor's thread.
  using ActiveJobs = std::function<std::set<std::string>()>;

  JobJanitor(JobJanitorDeps deps, ActiveJobs active_jobs)
      : deps_(deps), active_jobs_(std::move(active_jobs)) {}
  ~JobJanitor() { Stop(); }

  void Start();
  void Stop();
  // One sweep, now. Errors are logged and counted, never fatal.
  JanitorReport RunOnce();

 private:
  // Whether the job `job_or_step` is, or whose compile step it is, executes
  // right now.
  bool Executing(const std::string& job_or_step) const;

  JobJanitorDeps deps_;
  const ActiveJobs active_jobs_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_SRC_JOBS_JOB_JANITOR_H_
