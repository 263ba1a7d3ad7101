// WorkerPool: jobs.max_concurrent threads taking job ids off the queue.
#ifndef CODERUNNER_JOBS_WORKER_POOL_H_
#define CODERUNNER_JOBS_WORKER_POOL_H_

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/config/config.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/job_queue.h"

namespace coderunner::jobs {

// Each worker blocks on the queue (no polling), executes one job at a time
// and goes back. Start/Stop from one thread.
class WorkerPool {
 public:
  // Called on the worker's thread after each job it executed (fleet mode:
  // the claim loop frees the job's slot). Must not block for long.
  using AfterJob = std::function<void(const std::string& id)>;

  // `after_job` may be empty (default): nothing runs after a job.
  WorkerPool(JobQueue& queue, JobExecutor& executor, int threads, AfterJob after_job = nullptr)
      : queue_(queue), executor_(executor), threads_(threads), after_job_(std::move(after_job)) {}
  ~WorkerPool() { Stop(); }

  void Start();
  // Closes the queue (pending ids stay durable in the store for the next
  // start) and waits for the jobs in flight to finish.
  void Stop();

 private:
  JobQueue& queue_;
  JobExecutor& executor_;
  int threads_;
  AfterJob after_job_;
  std::vector<std::thread> workers_;
};

// The worker threads of a node: jobs.max_concurrent, or one per core when
// it is 0 (two if the core count is unknown).
int WorkerThreads(const config::Config& config);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_WORKER_POOL_H_
