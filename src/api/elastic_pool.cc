#include "elastic_pool.h"

#include <algorithm>

namespace coderunner::api {

ElasticPool::ElasticPool(size_t base, size_t max, std::chrono::milliseconds idle_exit)
    : base_(base), max_(std::max(max, base)), idle_exit_(idle_exit) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < base_; ++i) StartThreadLocked();
}

ElasticPool::~ElasticPool() { shutdown(); }

void ElasticPool::StartThreadLocked() {
  const uint64_t id = next_id_++;
  threads_.emplace(id, std::thread([this, id] { Work(id); }));
  peak_ = std::max(peak_, threads_.size());
}

void ElasticPool::ReapLocked() {
  for (uint64_t id : ended_) {
    auto it = threads_.find(id);
    if (it == threads_.end()) continue;
    // It has left every lock: join only waits for it to return.
    it->second.join();
    threads_.erase(it);
  }
  ended_.clear();
}

void ElasticPool::enqueue(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  ReapLocked();
  tasks_.push_back(std::move(fn));
  // Every idle thread may already be claimed by an earlier task.
  if (tasks_.size() > idle_ && threads_.size() < max_ && !shutdown_) StartThreadLocked();
  work_cv_.notify_one();
}

void ElasticPool::shutdown() {
  std::map<uint64_t, std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutdown_ && threads_.empty()) return;
    shutdown_ = true;
    ended_.clear();
    threads.swap(threads_);
  }
  work_cv_.notify_all();
  for (auto& [id, t] : threads) t.join();
}

ElasticPool::Stats ElasticPool::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Stats{threads_.size() - ended_.size(), idle_, peak_, tasks_.size()};
}

void ElasticPool::Work(uint64_t id) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ++idle_;
    const bool got =
        work_cv_.wait_for(lock, idle_exit_, [&] { return !tasks_.empty() || shutdown_; });
    --idle_;
    if (tasks_.empty()) {
      if (shutdown_) return;
      // Idle past idle_exit: a thread beyond the base ends.
      if (!got && threads_.size() - ended_.size() > base_) {
        ended_.push_back(id);
        return;
      }
      continue;
    }
    std::function<void()> fn = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace coderunner::api
