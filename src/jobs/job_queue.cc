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

void JobQueue::PushLocked(const std::string& tenant, const std::string& id) {
  auto& q = by_tenant_[tenant];
  if (q.empty()) rotation_.push_back(tenant);
  q.push_back(id);
  ++size_;
  cv_.notify_one();
}

void JobQueue::PushReserved(const std::string& tenant, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (reserved_ > 0) --reserved_;
  PushLocked(tenant, id);
}

void JobQueue::PushForce(const std::string& tenant, const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  PushLocked(tenant, id);
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

std::optional<std::string> JobQueue::Pop() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return closed_ || size_ > 0; });
  if (size_ == 0) return std::nullopt;
  // Serve the tenant at the front, then move it to the back if it has more.
  std::string tenant = rotation_.front();
  rotation_.pop_front();
  auto& q = by_tenant_[tenant];
  std::string id = std::move(q.front());
  q.pop_front();
  --size_;
  if (q.empty()) {
    by_tenant_.erase(tenant);
  } else {
    rotation_.push_back(tenant);
  }
  return id;
}

void JobQueue::Close(bool drop_pending) {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  if (drop_pending) {
    by_tenant_.clear();
    rotation_.clear();
    size_ = 0;
  }
  cv_.notify_all();
}

size_t JobQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return size_;
}

}  // namespace coderunner::jobs
