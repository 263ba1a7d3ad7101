// ReuseLot: the warm pool's containers that served one job of a reuse
// scope (a tenant whose tier has container_reuse) and were proven clean,
// each waiting for that scope's next job of the same shape. A container is
// only ever handed back to the scope and shape it was parked under.
#ifndef CODERUNNER_ISOLATION_REUSE_LOT_H_
#define CODERUNNER_ISOLATION_REUSE_LOT_H_

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace coderunner::isolation {

struct PooledContainer;  // coderunner/isolation/warm_pool.h

// Bounded: at most `max_parked` containers in all, each parked at most
// `max_wait`. Not thread-safe: the warm pool holds it under its lock.
class ReuseLot {
 public:
  using Clock = std::chrono::steady_clock;
  using Containers = std::vector<std::unique_ptr<PooledContainer>>;

  ReuseLot(int max_parked, std::chrono::milliseconds max_wait)
      : max_parked_(max_parked), max_wait_(max_wait) {}

  // Parks `c` for `scope`'s next job of shape `key`. Returns it back
  // (nullptr when parked) when the lot is full.
  std::unique_ptr<PooledContainer> Park(const std::string& scope, const std::string& key,
                                        std::unique_ptr<PooledContainer> c, Clock::time_point now);
  // The container of `scope` and `key` parked last whose stream is still
  // open, or nullptr. Dead ones found on the way are moved to `dead`.
  std::unique_ptr<PooledContainer> Take(const std::string& scope, const std::string& key,
                                        Containers& dead);
  // Removes and returns every container parked longer than the wait, or
  // whose stream ended.
  Containers Expire(Clock::time_point now);
  // Removes and returns every parked container.
  Containers TakeAll();
  int size() const { return parked_; }

 private:
  struct Parked {
    std::unique_ptr<PooledContainer> container;
    Clock::time_point since;
  };
  const int max_parked_;
  const std::chrono::milliseconds max_wait_;
  std::map<std::pair<std::string, std::string>, std::deque<Parked>> lots_;  // By scope, key.
  int parked_ = 0;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_REUSE_LOT_H_
