#include "output_relay.h"

#include <spdlog/spdlog.h>

#include <utility>
#include <vector>

namespace coderunner::fleet {
namespace {

// Longest a forwarder waits on its channel before it checks for Stop and
// restarts.
constexpr auto kSlice = std::chrono::milliseconds(100);

bool IsOutput(const jobs::JobEvent& e) {
  return e.kind == jobs::JobEvent::Kind::kStdout || e.kind == jobs::JobEvent::Kind::kStderr;
}

}  // namespace

Status FlushingNotices::Publish(const store::JobNotice& notice) {
  if (notice.kind == store::JobNotice::Kind::kChanged) relay_.Flush(notice.job_id);
  return inner_.Publish(notice);
}

Status FlushingNotices::Start(std::function<void(const store::JobNotice&)> on_notice,
                              std::function<void()> on_resync) {
  return inner_.Start(std::move(on_notice), std::move(on_resync));
}

void FlushingNotices::Stop() { inner_.Stop(); }

OutputRelay::OutputRelay(OutputRelayDeps deps)
    : deps_(std::move(deps)), flushing_(*this, *deps_.notices) {}

OutputRelay::~OutputRelay() { Stop(); }

void OutputRelay::Watch(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    followed_[id] = false;
  }
  Status s = deps_.notices->Publish({store::JobNotice::Kind::kWatch, id});
  if (!s.ok()) spdlog::warn("job {}: cannot ask for its live output: {}", id, s.ToString());
}

void OutputRelay::Forget(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  followed_.erase(id);
}

void OutputRelay::OnOutput(const store::JobNotice& notice) {
  const std::string& id = notice.job_id;
  if (deps_.runs_here(id)) return;
  std::shared_ptr<jobs::JobChannel> ch = deps_.hub->Find(id);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = followed_.find(id);
    if (it == followed_.end()) return;
    if (!ch) {
      followed_.erase(it);
      return;
    }
    if (ch->PublishOutputAt(notice.is_stderr, notice.offset, notice.data)) {
      it->second = false;
      return;
    }
    if (it->second) return;  // A replay is on its way.
    it->second = true;
  }
  Status s = deps_.notices->Publish({store::JobNotice::Kind::kWatch, id});
  if (!s.ok()) spdlog::warn("job {}: cannot ask for a replay: {}", id, s.ToString());
}

void OutputRelay::OnWatch(const std::string& id) {
  if (stopping_ || !deps_.runs_here(id)) return;
  std::shared_ptr<jobs::JobChannel> ch = deps_.hub->Find(id);
  if (!ch) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  ReapLocked();
  auto& f = forwarders_[id];  // ReapLocked dropped a done one.
  if (f) {
    f->restart = true;
    return;
  }
  f = std::make_shared<Forwarder>();
  f->channel = std::move(ch);
  Forwarder* raw = f.get();
  f->thread = std::thread([this, id, raw] { Forward(id, raw); });
}

void OutputRelay::Flush(const std::string& id) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = forwarders_.find(id);
  if (it == forwarders_.end() || !it->second->channel->terminal()) return;
  // Held, not borrowed: once it is done, an OnWatch may reap it from the
  // map while this waits to take mu_ back.
  std::shared_ptr<Forwarder> f = it->second;
  if (!done_cv_.wait_for(lock, kFlushWait, [&] { return stopping_ || f->done; })) {
    spdlog::warn("job {}: its live output was not all sent before it ended", id);
  }
  ReapLocked();
}

void OutputRelay::Stop() {
  std::map<std::string, std::shared_ptr<Forwarder>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    all.swap(forwarders_);
  }
  done_cv_.notify_all();
  for (auto& [id, f] : all) f->thread.join();
}

void OutputRelay::ReapLocked() {
  for (auto it = forwarders_.begin(); it != forwarders_.end();) {
    if (it->second->done) {
      it->second->thread.join();
      it = forwarders_.erase(it);
    } else {
      ++it;
    }
  }
}

void OutputRelay::Forward(const std::string& id, Forwarder* f) {
  jobs::EventCursor cursor;
  int64_t sent[2] = {0, 0};
  while (!stopping_) {
    if (f->restart.exchange(false)) {
      cursor = jobs::EventCursor{};
      sent[0] = sent[1] = 0;
    }
    std::vector<jobs::JobEvent> events;
    const bool done = f->channel->WaitEvents(&cursor, std::chrono::steady_clock::now() + kSlice,
                                             store::kMaxNoticeOutputBytes, &events);
    size_t bytes = 0;
    for (const jobs::JobEvent& e : events) {
      if (!IsOutput(e)) continue;
      const int s = e.kind == jobs::JobEvent::Kind::kStderr ? 1 : 0;
      SendOutput(id, s == 1, sent[s], e.data);
      sent[s] += static_cast<int64_t>(e.data.size());
      bytes += e.data.size();
    }
    if (done) {
      // Under mu_: a kWatch now either restarts this forwarder or, once it
      // is done, starts a new one (OnWatch); none is lost in between.
      std::lock_guard<std::mutex> lock(mu_);
      if (!f->restart) {
        f->done = true;
        done_cv_.notify_all();
        return;
      }
    }
    // Some output, less than a full chunk: let more come (or the end).
    if (bytes > 0 && bytes < store::kMaxNoticeOutputBytes) {
      f->channel->WaitTerminal(std::chrono::steady_clock::now() + kBatch);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  f->done = true;
  done_cv_.notify_all();
}

void OutputRelay::SendOutput(const std::string& id, bool is_stderr, int64_t offset,
                             const std::string& bytes) {
  for (size_t at = 0; at < bytes.size(); at += store::kMaxNoticeOutputBytes) {
    store::JobNotice n{store::JobNotice::Kind::kOutput, id};
    n.is_stderr = is_stderr;
    n.offset = offset + static_cast<int64_t>(at);
    n.data = bytes.substr(at, store::kMaxNoticeOutputBytes);
    Status s = deps_.notices->Publish(n);
    if (!s.ok()) {
      // The followers see a gap at the next chunk and ask for a replay.
      spdlog::warn("job {}: cannot send live output: {}", id, s.ToString());
      return;
    }
  }
}

}  // namespace coderunner::fleet
