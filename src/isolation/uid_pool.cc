#include "coderunner/isolation/uid_pool.h"

#include <string>
#include <utility>

#include "coderunner/config/uid_range.h"

namespace coderunner::isolation {

UidLease::UidLease(UidLease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)), uid_(std::exchange(other.uid_, -1)) {}

UidLease& UidLease::operator=(UidLease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = std::exchange(other.pool_, nullptr);
    uid_ = std::exchange(other.uid_, -1);
  }
  return *this;
}

UidLease::~UidLease() { Release(); }

void UidLease::Keep() { pool_ = nullptr; }

void UidLease::Release() {
  if (pool_ != nullptr) pool_->Give(uid_);
  pool_ = nullptr;
}

UidPool::UidPool(int64_t first, int64_t count)
    : first_(first), count_(count > 0 ? count : 0), taken_(static_cast<size_t>(count_)) {}

Status UidPool::Validate(int64_t first, int64_t count) {
  return config::ValidateUidRange(first, count);
}

StatusOr<UidLease> UidPool::Lease() {
  std::lock_guard<std::mutex> lock(mu_);
  for (int64_t k = 0; k < count_; ++k) {
    int64_t i = (next_ + k) % count_;
    if (taken_[static_cast<size_t>(i)]) continue;
    taken_[static_cast<size_t>(i)] = true;
    ++in_use_;
    next_ = (i + 1) % count_;
    return UidLease(this, first_ + i);
  }
  return ResourceExhaustedError(
      "every job uid of [" + std::to_string(first_) + ", +" + std::to_string(count_) +
          ") is in use by a live container or volume (raise sandbox.uid_count)",
      "uids_exhausted");
}

UidLease UidPool::Claim(int64_t uid) {
  if (!Contains(uid)) return UidLease();
  Reserve(uid);
  return UidLease(this, uid);
}

void UidPool::Reserve(int64_t uid) {
  if (!Contains(uid)) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto bit = taken_[static_cast<size_t>(uid - first_)];
  if (!bit) ++in_use_;
  bit = true;
}

void UidPool::Unreserve(int64_t uid) { Give(uid); }

void UidPool::Give(int64_t uid) {
  if (!Contains(uid)) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto bit = taken_[static_cast<size_t>(uid - first_)];
  if (bit) --in_use_;
  bit = false;
}

int64_t UidPool::in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

}  // namespace coderunner::isolation
