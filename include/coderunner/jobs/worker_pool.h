// WorkerPool: jobs.max_concurrent threads taking job ids off the queue.
#ifndef CODERUNNER_JOBS_WORKER_POOL_H_
#define CODERUNNER_JOBS_WORKER_POOL_H_

#include <thread>
#include <vector>

#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/job_queue.h"

namespace coderunner::jobs {

// Each worker blocks on the queue (no polling), executes one job at a time
// and goes back. Start/Stop from one thread.
class WorkerPool {
 public:
  WorkerPool(JobQueue& queue, JobExecutor& executor, int threads)
      : queue_(queue), executor_(executor), threads_(threads) {}
  ~WorkerPool() { Stop(); }

  void Start();
  // Closes the queue (pending ids stay durable in the store for the next
  // start) and waits for the jobs in flight to finish.
  void Stop();

 private:
  JobQueue& queue_;
  JobExecutor& executor_;
  int threads_;
  std::vector<std::thread> workers_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_WORKER_POOL_H_
