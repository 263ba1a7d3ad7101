#include "coderunner/jobs/job_channel.h"

#include <algorithm>
#include <limits>

namespace coderunner::jobs {
namespace {

// Appends `bytes` of stream `kind` to `out`, into its last event if that
// one is output of the same stream.
void AppendOutputEvent(JobEvent::Kind kind, std::string_view bytes, std::vector<JobEvent>* out) {
  if (!out->empty() && out->back().kind == kind) {
    out->back().data.append(bytes);
  } else {
    out->push_back({kind, std::string(bytes)});
  }
}

}  // namespace

void JobChannel::AppendText(JobEvent::Kind kind, std::string text) {
  texts_.push_back(std::move(text));
  entries_.push_back(
      {kind,
       {static_cast<int64_t>(output_[0].size()), static_cast<int64_t>(output_[1].size())},
       texts_.size() - 1});
  cv_.notify_all();
}

void JobChannel::PublishStatus(store::JobStatus status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) return;
  AppendText(JobEvent::Kind::kStatus, std::string(store::JobStatusName(status)));
}

void JobChannel::PublishStage(std::string stage_json) {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) return;
  AppendText(JobEvent::Kind::kStage, std::move(stage_json));
}

void JobChannel::PublishOutput(bool is_stderr, std::string_view bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) return;
  AppendOutput(is_stderr, bytes);
}

void JobChannel::AppendOutput(bool is_stderr, std::string_view bytes) {
  const int s = is_stderr ? 1 : 0;
  std::string& log = output_[s];
  int64_t room = std::max<int64_t>(0, output_cap_ - static_cast<int64_t>(log.size()));
  bytes = bytes.substr(0, static_cast<size_t>(std::min<int64_t>(room, bytes.size())));
  if (bytes.empty()) return;
  log.append(bytes);
  const auto kind = is_stderr ? JobEvent::Kind::kStderr : JobEvent::Kind::kStdout;
  const bool last_is_output = !entries_.empty() && IsOutput(entries_.back().kind);
  if (last_is_output && (entries_.back().kind == kind || output_entries_ >= kMaxOutputEntries)) {
    entries_.back().end[s] = static_cast<int64_t>(log.size());
  } else {
    entries_.push_back(
        {kind, {static_cast<int64_t>(output_[0].size()), static_cast<int64_t>(output_[1].size())}});
    ++output_entries_;
  }
  cv_.notify_all();
}

bool JobChannel::PublishOutputAt(bool is_stderr, int64_t offset, std::string_view bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t held = static_cast<int64_t>(output_[is_stderr ? 1 : 0].size());
  if (terminal_ || held >= output_cap_) return true;
  if (offset < 0 || offset > held) return false;
  const int64_t skip = held - offset;
  if (skip >= static_cast<int64_t>(bytes.size())) return true;
  AppendOutput(is_stderr, bytes.substr(static_cast<size_t>(skip)));
  return true;
}

void JobChannel::Finish(store::JobStatus status, std::string raw_result_json) {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) return;
  AppendText(JobEvent::Kind::kStatus, std::string(store::JobStatusName(status)));
  terminal_ = true;
  final_status_ = status;
  raw_result_json_ = std::move(raw_result_json);
}

bool JobChannel::WaitTerminal(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  ++waiters_;  // Seen by others only once the wait below releases mu_.
  const bool terminal = cv_.wait_until(lock, deadline, [&] { return terminal_; });
  --waiters_;
  return terminal;
}

bool JobChannel::HasNews(const EventCursor& c) const {
  if (c.entry >= entries_.size()) return false;
  if (c.entry + 1 < entries_.size()) return true;
  const Entry& e = entries_.back();
  return !IsOutput(e.kind) || e.end[0] > c.read[0] || e.end[1] > c.read[1];
}

bool JobChannel::WaitEvents(EventCursor* c, std::chrono::steady_clock::time_point deadline,
                            size_t max_output_bytes, std::vector<JobEvent>* out) {
  std::unique_lock<std::mutex> lock(mu_);
  ++waiters_;  // Seen by others only once the wait below releases mu_.
  cv_.wait_until(lock, deadline, [&] { return terminal_ || HasNews(*c); });
  --waiters_;
  int64_t budget = static_cast<int64_t>(
      std::clamp<size_t>(max_output_bytes, 1, std::numeric_limits<int64_t>::max()));
  while (c->entry < entries_.size()) {
    const Entry& e = entries_[c->entry];
    for (int s = 0; s < 2 && budget > 0; ++s) {
      int64_t take = std::min(e.end[s] - c->read[s], budget);
      if (take <= 0) continue;
      AppendOutputEvent(s == 1 ? JobEvent::Kind::kStderr : JobEvent::Kind::kStdout,
                        std::string_view(output_[s])
                            .substr(static_cast<size_t>(c->read[s]), static_cast<size_t>(take)),
                        out);
      c->read[s] += take;
      budget -= take;
    }
    if (c->read[0] < e.end[0] || c->read[1] < e.end[1]) break;  // Out of budget.
    if (!IsOutput(e.kind)) {
      out->push_back({e.kind, texts_[e.text]});
    } else if (c->entry + 1 == entries_.size()) {
      break;  // The last entry may still grow: stay on it.
    }
    ++c->entry;
  }
  return terminal_ && c->entry == entries_.size();
}

bool JobChannel::terminal() const {
  std::lock_guard<std::mutex> lock(mu_);
  return terminal_;
}

store::JobStatus JobChannel::final_status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return final_status_;
}

std::string JobChannel::raw_result_json() const {
  std::lock_guard<std::mutex> lock(mu_);
  return raw_result_json_;
}

void JobChannel::SetRunError(Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  run_error_ = std::move(error);
}

Status JobChannel::run_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return run_error_;
}

void JobChannel::SetPrepared(std::unique_ptr<RunnableJob> job) {
  std::lock_guard<std::mutex> lock(mu_);
  prepared_ = std::move(job);
}

std::unique_ptr<RunnableJob> JobChannel::TakePrepared() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::move(prepared_);
}

void JobChannel::SetAccepted(store::JobRecord record) {
  std::lock_guard<std::mutex> lock(mu_);
  accepted_ = std::move(record);
}

std::optional<store::JobRecord> JobChannel::TakeAccepted() {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<store::JobRecord> out = std::move(accepted_);
  accepted_.reset();
  return out;
}

size_t JobChannel::log_entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

size_t JobChannel::waiters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiters_;
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

void JobHub::Finish(const std::string& id, store::JobStatus status, std::string raw_result_json) {
  std::shared_ptr<JobChannel> ch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = channels_.find(id);
    if (it == channels_.end()) return;
    ch = std::move(it->second);
    channels_.erase(it);
  }
  ch->Finish(status, std::move(raw_result_json));
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++finished_;
  }
  finished_cv_.notify_all();
}

uint64_t JobHub::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finished_;
}

bool JobHub::WaitFinishAfter(uint64_t seen, std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock<std::mutex> lock(mu_);
  return finished_cv_.wait_until(lock, deadline, [&] { return finished_ > seen; });
}

std::vector<std::string> JobHub::Ids() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> ids;
  ids.reserve(channels_.size());
  for (const auto& [id, ch] : channels_) ids.push_back(id);
  return ids;
}

size_t JobHub::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return channels_.size();
}

}  // namespace coderunner::jobs
