// CancelToken: lets one thread ask a running job to stop.
#ifndef CODERUNNER_ISOLATION_CANCEL_TOKEN_H_
#define CODERUNNER_ISOLATION_CANCEL_TOKEN_H_

#include <functional>
#include <mutex>

namespace coderunner::isolation {

// Thread-safe. Cancel() is sticky: once cancelled, always cancelled, until
// the job's next attempt Renew()s it.
class CancelToken {
 public:
  // Marks the token cancelled and runs the registered callback (once).
  void Cancel() {
    std::function<void()> cb;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cancelled_) return;
      cancelled_ = true;
      cb = callback_;
    }
    if (cb) cb();
  }

  // Un-cancels the token and drops its callback, for a new attempt of the
  // job whose token was cancelled for an earlier one. Never for a run in
  // progress.
  void Renew() {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = false;
    callback_ = nullptr;
  }

  bool cancelled() const {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_;
  }

  // Registers `cb` to run on Cancel() (replacing any previous one); runs it
  // at once if already cancelled. `cb` must not call back into the token.
  void OnCancel(std::function<void()> cb) {
    bool now;
    {
      std::lock_guard<std::mutex> lock(mu_);
      callback_ = cb;
      now = cancelled_;
    }
    if (now && cb) cb();
  }

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::function<void()> callback_;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_CANCEL_TOKEN_H_
