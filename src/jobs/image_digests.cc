#include "image_digests.h"

namespace coderunner::jobs {

ImageDigests::ImageDigests(engine::ImageClient* images, std::chrono::milliseconds ttl,
                           std::chrono::milliseconds first_wait)
    : images_(images), ttl_(ttl), first_wait_(first_wait) {}

ImageDigests::~ImageDigests() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int ImageDigests::lookups() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lookups_;
}

std::string ImageDigests::Get(const std::string& image) {
  // A digest pinned by a replay is its own answer.
  if (image.rfind("sha256:", 0) == 0) return image;
  const Clock::time_point asked = Clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  Entry& e = cache_[image];
  if (!e.digest.empty() && asked < e.found_at + ttl_) return e.digest;
  if (wanted_.insert(image).second) {
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
    cv_.notify_all();
  }
  // Known, if stale: the refresh is not waited for.
  if (!e.digest.empty()) return e.digest;
  cv_.wait_until(lock, asked + first_wait_, [&] {
    const Entry& now = cache_[image];
    return now.tried && now.tried_at >= asked;
  });
  return cache_[image].digest;
}

void ImageDigests::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !wanted_.empty(); });
    if (stopping_) return;
    const std::string image = *wanted_.begin();
    ++lookups_;
    lock.unlock();
    auto info = images_->Inspect(image);
    lock.lock();
    wanted_.erase(image);
    Entry& e = cache_[image];
    e.tried = true;
    e.tried_at = Clock::now();
    if (info.ok() && !info->id.empty()) {
      e.digest = info->id;
      e.found_at = e.tried_at;
    }
    cv_.notify_all();
  }
}

}  // namespace coderunner::jobs
