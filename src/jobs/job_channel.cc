#include "coderunner/jobs/job_channel.h"

#include <algorithm>

namespace coderunner::jobs {

void JobChannel::PublishStatus(JobStatus status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) return;
  events_.push_back({JobEvent::Kind::kStatus, std::string(JobStatusName(status))});
  cv_.notify_all();
}

void JobChannel::PublishStage(std::string stage_json) {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) return;
  events_.push_back({JobEvent::Kind::kStage, std::move(stage_json)});
  cv_.notify_all();
}

void JobChannel::PublishOutput(bool is_stderr, std::string_view bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) return;
  int64_t& used = is_stderr ? stderr_bytes_ : stdout_bytes_;
  int64_t room = std::max<int64_t>(0, output_cap_ - used);
  bytes = bytes.substr(0, static_cast<size_t>(std::min<int64_t>(room, bytes.size())));
  if (bytes.empty()) return;
  used += static_cast<int64_t>(bytes.size());
  events_.push_back(
      {is_stderr ? JobEvent::Kind::kStderr : JobEvent::Kind::kStdout, std::string(bytes)});
  cv_.notify_all();
}

void JobChannel::Finish(JobStatus status, std::string raw_result_json) {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) return;
  events_.push_back({JobEvent::Kind::kStatus, std::string(JobStatusName(status))});
  terminal_ = true;
  raw_result_json_ = std::move(raw_result_json);
  cv_.notify_all();
}

bool JobChannel::WaitTerminal(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_until(lock, deadline, [&] { return terminal_; });
}

size_t JobChannel::WaitEvents(size_t next, std::chrono::steady_clock::time_point deadline,
                              std::vector<JobEvent>* out, bool* terminal) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_until(lock, deadline, [&] { return terminal_ || events_.size() > next; });
  for (size_t i = next; i < events_.size(); ++i) out->push_back(events_[i]);
  *terminal = terminal_;
  return events_.size();
}

bool JobChannel::terminal() const {
  std::lock_guard<std::mutex> lock(mu_);
  return terminal_;
}

std::string JobChannel::raw_result_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  return raw_result_json_;
}

std::shared_ptr<JobChannel> JobHub::Open(const std::string& id, int64_t output_cap) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& ch = channels_[id];
  if (!ch) ch = std::make_shared<JobChannel>(output_cap);
  return ch;
}

std::shared_ptr<JobChannel> JobHub::Find(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = channels_.find(id);
  return it == channels_.end() ? nullptr : it->second;
}

void JobHub::Finish(const std::string& id, JobStatus status, std::string raw_result_json) {
  std::shared_ptr<JobChannel> ch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = channels_.find(id);
    if (it == channels_.end()) return;
    ch = std::move(it->second);
    channels_.erase(it);
  }
  ch->Finish(status, std::move(raw_result_json));
}

size_t JobHub::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return channels_.size();
}

}  // namespace coderunner::jobs
