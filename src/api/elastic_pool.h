// ElasticPool: the HTTP threads, as many as the requests being served.
#ifndef CODERUNNER_SRC_API_ELASTIC_POOL_H_
#define CODERUNNER_SRC_API_ELASTIC_POOL_H_

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace coderunner::api {

// cpp-httplib serves each connection on one thread from accept to close,
// and a request that waits for a job (/wait, /events, /v1/execute) keeps
// its thread while it waits. A fixed pool makes waiters queue behind
// waiters, and other tenants' requests behind them all. This pool keeps
// `base` threads and starts another whenever a task arrives and none is
// idle, up to `max`; a thread beyond `base` that stays idle for
// `idle_exit` ends. A waiting thread costs a few KiB of touched stack and
// no CPU, so a thousand waiters cost tens of MiB, and the count falls back
// once they are answered. Past `max`, tasks queue until a thread is free.
// Thread-safe.
class ElasticPool : public httplib::TaskQueue {
 public:
  ElasticPool(size_t base, size_t max, std::chrono::milliseconds idle_exit);
  // Runs what is queued, then joins every thread (shutdown()).
  ~ElasticPool() override;
  ElasticPool(const ElasticPool&) = delete;
  ElasticPool& operator=(const ElasticPool&) = delete;

  void enqueue(std::function<void()> fn) override;
  // Lets the threads finish what is queued, then joins them.
  void shutdown() override;

  struct Stats {
    size_t threads = 0;  // Alive now.
    size_t idle = 0;     // Of them, waiting for a task.
    size_t peak = 0;     // Most alive at once.
    size_t queued = 0;   // Tasks waiting for a thread.
  };
  Stats GetStats() const;

 private:
  // Requires mu_: starts one more thread.
  void StartThreadLocked();
  void Work(uint64_t id);
  // Requires mu_: joins threads that ended.
  void ReapLocked();

  const size_t base_;
  const size_t max_;
  const std::chrono::milliseconds idle_exit_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::deque<std::function<void()>> tasks_;
  std::map<uint64_t, std::thread> threads_;
  std::vector<uint64_t> ended_;  // Threads that returned, to join.
  uint64_t next_id_ = 0;
  size_t idle_ = 0;
  size_t peak_ = 0;
  bool shutdown_ = false;
};

}  // namespace coderunner::api

#endif  // CODERUNNER_SRC_API_ELASTIC_POOL_H_
