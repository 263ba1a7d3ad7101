// JobJanitor: periodic housekeeping while the service runs.
#ifndef CODERUNNER_JOBS_JOB_JANITOR_H_
#define CODERUNNER_JOBS_JOB_JANITOR_H_

#include <condition_variable>
#include <mutex>
#include <thread>

#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/jobs_context.h"

namespace coderunner::jobs {

struct JanitorReport {
  int containers_removed = 0;
  int workspaces_removed = 0;
  int artifacts_removed = 0;  // Artifact directories without a job.
  int jobs_purged = 0;
  int cache_purged = 0;
};

// Every jobs.janitor_interval_s: removes containers labelled with this
// instance and job workspaces that no executing job owns, purges terminal
// records older than jobs.retention_s with their artifacts, artifact
// directories of unknown jobs, and expired cache entries.
// Thread-safe; Start/Stop from one thread.
class JobJanitor {
 public:
  JobJanitor(JobsContext ctx, const JobExecutor& executor) : ctx_(ctx), executor_(executor) {}
  ~JobJanitor() { Stop(); }

  void Start();
  void Stop();
  // One sweep, now. Errors are logged and counted, never fatal.
  JanitorReport RunOnce();

 private:
  JobsContext ctx_;
  const JobExecutor& executor_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_JANITOR_H_
