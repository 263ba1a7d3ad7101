#include "coderunner/isolation/attached_container.h"

namespace coderunner::isolation {

AttachedContainer::AttachedContainer(engine::ContainerClient& containers, std::string id,
                                     std::chrono::milliseconds bound, Sink sink)
    : containers_(containers), id_(std::move(id)), sink_(std::move(sink)) {
  reader_ = std::thread([this, bound] {
    Status s = containers_.Attach(
        id_, [this](std::string_view chunk) { return Deliver(chunk); },
        [this] {
          std::lock_guard<std::mutex> lock(mu_);
          attached_ = true;
          cv_.notify_all();
        },
        bound, &abort_);
    std::lock_guard<std::mutex> lock(mu_);
    status_ = std::move(s);
    done_ = true;
    cv_.notify_all();
  });
}

AttachedContainer::~AttachedContainer() { Join(); }

void AttachedContainer::Abort() { abort_.Abort(); }

void AttachedContainer::Join() {
  if (reader_.joinable()) reader_.join();
}

void AttachedContainer::EndAfterRemoval(std::chrono::milliseconds grace) {
  if (WaitDone(Clock::now() + grace, /*wake_on_cancel=*/false) != Wake::kDone || !done()) {
    Abort();
  }
  Join();
}

bool AttachedContainer::Deliver(std::string_view chunk) {
  std::lock_guard<std::mutex> lock(sink_mu_);
  if (!sink_) {
    std::lock_guard<std::mutex> state(mu_);
    unclaimed_ += chunk.size();
    return true;
  }
  return sink_(chunk);
}

void AttachedContainer::SetSink(Sink sink) {
  std::lock_guard<std::mutex> lock(sink_mu_);
  sink_ = std::move(sink);
}

AttachedContainer::Wake AttachedContainer::WaitAttached(Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_until(lock, deadline, [&] { return attached_ || done_ || cancelled_; });
  if (cancelled_) return Wake::kCancelled;
  if (attached_) return Wake::kAttached;
  return done_ ? Wake::kDone : Wake::kTimedOut;
}

AttachedContainer::Wake AttachedContainer::WaitDone(Clock::time_point deadline,
                                                    bool wake_on_cancel) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_until(lock, deadline,
                 [&] { return done_ || complete_ || (wake_on_cancel && cancelled_); });
  if (done_ || complete_) return Wake::kDone;
  return wake_on_cancel && cancelled_ ? Wake::kCancelled : Wake::kTimedOut;
}

void AttachedContainer::Cancel() {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = true;
  cv_.notify_all();
}

void AttachedContainer::MarkComplete() {
  std::lock_guard<std::mutex> lock(mu_);
  complete_ = true;
  cv_.notify_all();
}

bool AttachedContainer::complete() const {
  std::lock_guard<std::mutex> lock(mu_);
  return complete_;
}

void AttachedContainer::ClearCancel() {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = false;
}

void AttachedContainer::ClearComplete() {
  std::lock_guard<std::mutex> lock(mu_);
  complete_ = false;
}

bool AttachedContainer::done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

Status AttachedContainer::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

uint64_t AttachedContainer::unclaimed_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return unclaimed_;
}

}  // namespace coderunner::isolation
