// JobJanitor: periodic housekeeping while the service runs.
#ifndef CODERUNNER_SRC_JOBS_JOB_JANITOR_H_
#define CODERUNNER_SRC_JOBS_JOB_JANITOR_H_

#include <condition_variable>
#include <mutex>
#include <thread>

#include "coderunner/config/config.h"
#include "coderunner/engine/containers.h"
#include "coderunner/isolation/warm_pool.h"
#include "coderunner/jobs/job_executor.h"
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
  // `executor` (not owned, outlives the janitor) tells which jobs run.
  JobJanitor(JobJanitorDeps deps, const JobExecutor& executor) : deps_(deps), executor_(executor) {}
  ~JobJanitor() { Stop(); }

  void Start();
  void Stop();
  // One sweep, now. Errors are logged and counted, never fatal.
  JanitorReport RunOnce();

 private:
  JobJanitorDeps deps_;
  const JobExecutor& executor_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_SRC_JOBS_JOB_JANITOR_H_
