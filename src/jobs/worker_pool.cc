#include "coderunner/jobs/worker_pool.h"

namespace coderunner::jobs {

int WorkerThreads(const config::Config& config) {
  if (config.jobs.max_concurrent > 0) return config.jobs.max_concurrent;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 2 : static_cast<int>(n);
}

void WorkerPool::Start() {
  for (int i = 0; i < threads_; ++i) {
    workers_.emplace_back([this] {
      while (auto e = queue_.PopEntry()) {
        executor_.Execute(e->id);
        queue_.Done(e->tenant);
        if (after_job_) after_job_(e->id);
      }
    });
  }
}

void WorkerPool::Stop() {
  queue_.Close(/*drop_pending=*/true);
  for (auto& w : workers_) {
    if (w.joinable()) w.join();
  }
  workers_.clear();
}

}  // namespace coderunner::jobs
