// Gate: threads of a test wait at it until the test opens it.
#ifndef CODERUNNER_TESTS_UNIT_GATE_H_
#define CODERUNNER_TESTS_UNIT_GATE_H_

#include <condition_variable>
#include <mutex>

namespace coderunner::testutil {

class Gate {
 public:
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  // Returns once the gate is open.
  void Pass() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_GATE_H_
