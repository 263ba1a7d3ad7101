#include "coderunner/jobs/worker_pool.h"

namespace coderunner::jobs {

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
