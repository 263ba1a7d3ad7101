// SandboxPool: sandboxes launched ahead, so that a create takes a running
// container instead of asking the engine to create and start one (most of
// what a create costs).
#ifndef CODERUNNER_SANDBOXES_SANDBOX_POOL_H_
#define CODERUNNER_SANDBOXES_SANDBOX_POOL_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "coderunner/common/status.h"
#include "coderunner/sandboxes/live_sandbox.h"
#include "coderunner/sandboxes/repl_driver.h"

namespace coderunner::sandboxes {

// The shapes are learned: a create that finds none ready names its shape
// (what of its spec the container is built from: language, limits,
// runtime, the size of /home/user), and the pool then keeps `per_shape`
// ready for each of the last kMaxShapes shapes asked for. A ready sandbox
// was launched for no tenant, with an id and a uid of its own, and is
// given out once. Sandboxes with a volume are never pooled (a volume is a
// tenant's).
//
// Thread-safe. Stop() (or the destructor) removes the ready ones; it must
// run before what the launcher uses goes away.
class SandboxPool {
 public:
  // Launches one sandbox of `spec` (its id already chosen) with `driver`.
  using Launcher = std::function<StatusOr<std::unique_ptr<LiveSandbox>>(
      const isolation::JobSpec& spec, const ReplDriver& driver)>;

  // The shapes kept at once; asking for another forgets the one asked for
  // longest ago.
  static constexpr size_t kMaxShapes = 4;

  // Told how many are ready whenever that changes (a gauge).
  using ReadyCount = std::function<void(size_t ready)>;

  SandboxPool(int per_shape, Launcher launch, ReadyCount on_ready = nullptr);
  ~SandboxPool();
  SandboxPool(const SandboxPool&) = delete;
  SandboxPool& operator=(const SandboxPool&) = delete;

  // Starts the thread that keeps the shapes filled.
  void Start();
  // Stops it and removes every ready sandbox. Idempotent.
  void Stop();

  // A ready, live sandbox of `spec`'s shape (its own id: spec().id), or
  // nullptr, and the shape is then learned. `spec` must have no volume.
  std::unique_ptr<LiveSandbox> Take(const isolation::JobSpec& spec, const ReplDriver& driver);
  // A sandbox Take gave that was not used after all: ready again (or
  // removed, if its shape was forgotten meanwhile).
  void GiveBack(std::unique_ptr<LiveSandbox> sandbox);

  // The key of `spec`'s shape. Pure.
  static std::string ShapeOf(const isolation::JobSpec& spec);

 private:
  struct Shape {
    isolation::JobSpec spec;  // Its id is chosen per launch.
    ReplDriver driver;
    std::deque<std::unique_ptr<LiveSandbox>> ready;
    int launching = 0;
    std::chrono::steady_clock::time_point asked_at;
  };

  void FillLoop();
  // A shape short of per_shape, marked launching; "" if none. Requires mu_.
  std::string NextToFill();
  static void Remove(std::unique_ptr<LiveSandbox> sandbox);
  void ReportReady();  // Requires mu_.

  const int per_shape_;
  const Launcher launch_;
  const ReadyCount on_ready_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Shape> shapes_;  // By ShapeOf.
  bool stopping_ = false;
  std::thread filler_;
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_SANDBOX_POOL_H_
