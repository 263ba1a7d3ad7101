// Test doubles for fleet-mode JobService tests: an in-process notice bus
// (every node's JobNotices, delivering each Publish to every subscriber on
// one thread of its own) and a JobRunner that counts runs per job and can
// hold a run until the test releases it or the run is cancelled.
#ifndef CODERUNNER_TESTS_UNIT_JOBS_FLEET_FAKES_H_
#define CODERUNNER_TESTS_UNIT_JOBS_FLEET_FAKES_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/isolation/job_runner.h"
#include "coderunner/store/job_notices.h"

namespace coderunner::testutil {

// Generous bound, only so a broken service fails instead of hanging.
inline constexpr auto kFleetHangGuard = std::chrono::seconds(60);

// The bus the nodes' FakeJobNotices share. Thread-safe.
class NoticeBus {
 public:
  NoticeBus() : thread_([this] { Deliver(); }) {}
  ~NoticeBus() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Publish(const store::JobNotice& n) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending_.push_back(n);
    }
    cv_.notify_all();
  }
  int Subscribe(std::function<void(const store::JobNotice&)> fn) {
    std::lock_guard<std::mutex> lock(deliver_mu_);
    subscribers_[next_] = std::move(fn);
    return next_++;
  }
  // No callback of `id` runs after it returns.
  void Unsubscribe(int id) {
    std::lock_guard<std::mutex> lock(deliver_mu_);
    subscribers_.erase(id);
  }

 private:
  void Deliver() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (stopping_) return;
      store::JobNotice n = pending_.front();
      pending_.pop_front();
      lock.unlock();
      {
        std::lock_guard<std::mutex> deliver(deliver_mu_);
        for (auto& [id, fn] : subscribers_) fn(n);
      }
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<store::JobNotice> pending_;
  bool stopping_ = false;
  std::mutex deliver_mu_;
  std::map<int, std::function<void(const store::JobNotice&)>> subscribers_;
  int next_ = 0;
  std::thread thread_;
};

// One node's JobNotices on a NoticeBus.
class FakeJobNotices : public store::JobNotices {
 public:
  explicit FakeJobNotices(NoticeBus& bus) : bus_(bus) {}
  ~FakeJobNotices() override { Stop(); }
  Status Publish(const store::JobNotice& notice) override {
    bus_.Publish(notice);
    return OkStatus();
  }
  Status Start(std::function<void(const store::JobNotice&)> on_notice,
               std::function<void()> on_resync) override {
    if (id_ >= 0) return FailedPreconditionError("started twice", "started");
    id_ = bus_.Subscribe(std::move(on_notice));
    on_resync();
    return OkStatus();
  }
  void Stop() override {
    if (id_ >= 0) bus_.Unsubscribe(id_);
    id_ = -1;
  }

 private:
  NoticeBus& bus_;
  int id_ = -1;
};

// Runs nothing: a run succeeds with stdout "ran on <node>\n", at once or,
// while held, once released or cancelled (then status cancelled). Before
// it holds, a run writes the live output chunks given to SetLiveOutput
// (stdout), each through the run's output hook.
class CountingRunner : public isolation::JobRunner {
 public:
  explicit CountingRunner(std::string node) : node_(std::move(node)) {}

  void Hold(bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = on;
  }
  void SetLiveOutput(std::vector<std::string> chunks) {
    std::lock_guard<std::mutex> lock(mu_);
    live_output_ = std::move(chunks);
  }
  void ReleaseAll() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  // Blocks until `n` runs started here (bounded by the hang guard).
  bool WaitStarted(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kFleetHangGuard, [&] { return started_ >= n; });
  }
  // Blocks until `n` runs returned here (bounded by the hang guard).
  bool WaitReturned(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kFleetHangGuard, [&] { return returned_ >= n; });
  }
  std::map<std::string, int> runs() const {
    std::lock_guard<std::mutex> lock(mu_);
    return runs_;
  }
  int cancelled() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_;
  }

  StatusOr<isolation::RunResult> Run(const isolation::JobSpec& job,
                                     const isolation::RunHooks& hooks) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++runs_[job.id];
    ++started_;
    cv_.notify_all();
    if (hooks.cancel != nullptr) {
      hooks.cancel->OnCancel([this] {
        std::lock_guard<std::mutex> l(mu_);
        cv_.notify_all();
      });
    }
    const bool held = hold_;
    const std::vector<std::string> live = live_output_;
    lock.unlock();
    for (const std::string& chunk : live) {
      if (hooks.on_output) hooks.on_output(engine::StreamId::kStdout, chunk);
    }
    bool cancelled = false;
    if (held) {
      lock.lock();
      cv_.wait_for(lock, kFleetHangGuard, [&] {
        return released_ || (hooks.cancel != nullptr && hooks.cancel->cancelled());
      });
      lock.unlock();
    }
    if (hooks.cancel != nullptr) {
      hooks.cancel->OnCancel(nullptr);
      cancelled = hooks.cancel->cancelled();
    }
    isolation::RunResult r;
    r.status = cancelled ? isolation::RunStatus::kCancelled : isolation::RunStatus::kSucceeded;
    r.exit_code = cancelled ? -1 : 0;
    r.stdout_data = "ran on " + node_ + "\n";
    r.image = job.language.image;
    lock.lock();
    if (cancelled) ++cancelled_;
    ++returned_;
    cv_.notify_all();
    return r;
  }

 private:
  const std::string node_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, int> runs_;
  int started_ = 0;
  int returned_ = 0;
  int cancelled_ = 0;
  bool hold_ = false;
  bool released_ = false;
  std::vector<std::string> live_output_;
};

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_JOBS_FLEET_FAKES_H_
