// TenantFairQueue: one FIFO per tenant, served round-robin, so that one
// tenant's backlog or slow consumers never hold back another tenant's items.
#ifndef CODERUNNER_JOBS_TENANT_FAIR_QUEUE_H_
#define CODERUNNER_JOBS_TENANT_FAIR_QUEUE_H_

#include <algorithm>
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace coderunner::jobs {

// Items wait in their tenant's FIFO; Pop takes from the next tenant in
// round-robin order (by name, after the tenant served last) that has an item
// waiting and fewer than `max_in_flight_per_tenant` items taken and not yet
// Done. Each tenant's FIFO holds at most `max_pending_per_tenant` items.
// Memory: one entry per tenant with items waiting or in flight. Not
// thread-safe: the owner locks around every call.
template <typename T>
class TenantFairQueue {
 public:
  // Both bounds are counts, at least 1 (smaller values act as 1).
  TenantFairQueue(size_t max_pending_per_tenant, int max_in_flight_per_tenant)
      : max_pending_(std::max<size_t>(1, max_pending_per_tenant)),
        max_in_flight_(std::max(1, max_in_flight_per_tenant)) {}

  // Appends `item` to `tenant`'s FIFO. False (and nothing added) if that
  // FIFO already holds max_pending_per_tenant items.
  bool Push(const std::string& tenant, T item) {
    Lane& lane = lanes_[tenant];
    if (lane.waiting.size() >= max_pending_) {
      Prune(tenant);
      return false;
    }
    lane.waiting.push_back(std::move(item));
    ++pending_;
    return true;
  }

  // The next item to serve and its tenant, now counted in flight for that
  // tenant until Done(tenant); nullopt if no tenant has an item it may take.
  std::optional<std::pair<std::string, T>> Pop() {
    if (lanes_.empty()) return std::nullopt;
    auto start = lanes_.upper_bound(last_served_);
    for (size_t i = 0; i < lanes_.size(); ++i, ++start) {
      if (start == lanes_.end()) start = lanes_.begin();
      Lane& lane = start->second;
      if (lane.waiting.empty() || lane.in_flight >= max_in_flight_) continue;
      std::pair<std::string, T> out{start->first, std::move(lane.waiting.front())};
      lane.waiting.pop_front();
      ++lane.in_flight;
      --pending_;
      ++in_flight_;
      last_served_ = start->first;
      return out;
    }
    return std::nullopt;
  }

  // One item Pop gave for `tenant` is finished; its in-flight slot frees.
  void Done(const std::string& tenant) {
    auto it = lanes_.find(tenant);
    if (it == lanes_.end() || it->second.in_flight == 0) return;
    --it->second.in_flight;
    --in_flight_;
    Prune(tenant);
  }

  size_t pending() const { return pending_; }   // Items waiting, all tenants.
  int in_flight() const { return in_flight_; }  // Items taken, not Done.
  // The tenants with at least max_in_flight_per_tenant items waiting or in
  // flight (one more would wait for a slot of their own), by name.
  std::vector<std::string> Saturated() const {
    std::vector<std::string> out;
    for (const auto& [tenant, lane] : lanes_) {
      if (lane.waiting.size() + static_cast<size_t>(lane.in_flight) >=
          static_cast<size_t>(max_in_flight_)) {
        out.push_back(tenant);
      }
    }
    return out;
  }
  // Items waiting for `tenant`.
  size_t pending(const std::string& tenant) const {
    auto it = lanes_.find(tenant);
    return it == lanes_.end() ? 0 : it->second.waiting.size();
  }

 private:
  struct Lane {
    std::deque<T> waiting;
    int in_flight = 0;
  };
  // Forgets `tenant` once it has nothing waiting or in flight.
  void Prune(const std::string& tenant) {
    auto it = lanes_.find(tenant);
    if (it != lanes_.end() && it->second.waiting.empty() && it->second.in_flight == 0) {
      lanes_.erase(it);
    }
  }

  size_t max_pending_;
  int max_in_flight_;
  std::map<std::string, Lane> lanes_;
  std::string last_served_;  // Round-robin position: the tenant served last.
  size_t pending_ = 0;
  int in_flight_ = 0;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_TENANT_FAIR_QUEUE_H_
