#include "coderunner/jobs/job_queue.h"

#include <algorithm>

namespace coderunner::jobs {

bool JobQueue::Reserve(size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (size_ + reserved_ + n > capacity_) return false;
  reserved_ += n;
  return true;
}

void JobQueue::Release(size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  reserved_ -= std::min(n, reserved_);
}

void JobQueue::PushLocked(const std::string& tenant, const std::string& id, int max_running) {
  if (max_running > 0) max_running_[tenant] = max_running;
  auto& q = by_tenant_[tenant];
  if (q.empty()) rotation_.push_back(tenant);
  q.push_back(id);
  ++size_;
  cv_.notify_one();
}

void JobQueue::PushReserved(const std::string& tenant, const std::string& id, int max_running) {
  std::lock_guard<std::mutex> lock(mu_);
  if (reserved_ > 0) --reserved_;
  PushLocked(tenant, id, max_running);
}

void JobQueue::PushForce(const std::string& tenant, const std::string& id, int max_running) {
  std::lock_guard<std::mutex> lock(mu_);
  PushLocked(tenant, id, max_running);
}

bool JobQueue::Remove(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = by_tenant_.begin(); it != by_tenant_.end(); ++it) {
    auto& q = it->second;
    auto pos = std::find(q.begin(), q.end(), id);
    if (pos == q.end()) continue;
    q.erase(pos);
    --size_;
    if (q.empty()) {
      rotation_.remove(it->first);
      by_tenant_.erase(it);
    }
    return true;
  }
  return false;
}

std::list<std::string>::iterator JobQueue::EligibleLocked() {
  for (auto it = rotation_.begin(); it != rotation_.end(); ++it) {
    auto cap = max_running_.find(*it);
    if (cap == max_running_.end() || cap->second <= 0 || running_[*it] < cap->second) return it;
  }
  return rotation_.end();
}

std::optional<JobQueue::Entry> JobQueue::PopEntry() {
  std::unique_lock<std::mutex> lock(mu_);
  std::list<std::string>::iterator pick;
  ++blocked_pops_;  // Seen by others only once the wait below releases mu_.
  // Woken by pushes and by Done (a tenant at its cap may become eligible).
  cv_.wait(lock, [&] {
    if (closed_ && size_ == 0) return true;
    pick = EligibleLocked();
    return pick != rotation_.end() || (closed_ && size_ == 0);
  });
  --blocked_pops_;
  if (size_ == 0 || pick == rotation_.end()) return std::nullopt;
  // Serve that tenant, then move it to the back if it has more.
  std::string tenant = *pick;
  rotation_.erase(pick);
  auto& q = by_tenant_[tenant];
  Entry e{tenant, std::move(q.front())};
  q.pop_front();
  --size_;
  ++running_[tenant];
  if (q.empty()) {
    by_tenant_.erase(tenant);
  } else {
    rotation_.push_back(tenant);
  }
  return e;
}

std::optional<std::string> JobQueue::Pop() {
  auto e = PopEntry();
  if (!e) return std::nullopt;
  return e->id;
}

void JobQueue::Done(const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = running_.find(tenant);
  if (it != running_.end() && --it->second <= 0) running_.erase(it);
  cv_.notify_all();
}

size_t JobQueue::TenantQueued(const std::string& tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_tenant_.find(tenant);
  return it == by_tenant_.end() ? 0 : it->second.size();
}

std::vector<std::string> JobQueue::Close(bool drop_pending) {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  std::vector<std::string> dropped;
  if (drop_pending) {
    for (const auto& [tenant, ids] : by_tenant_)
      dropped.insert(dropped.end(), ids.begin(), ids.end());
    by_tenant_.clear();
    rotation_.clear();
    size_ = 0;
  }
  cv_.notify_all();
  return dropped;
}

size_t JobQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return size_;
}

size_t JobQueue::blocked_pops() const {
  std::lock_guard<std::mutex> lock(mu_);
  return blocked_pops_;
}

}  // namespace coderunner::jobs
