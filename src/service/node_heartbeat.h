// NodeHeartbeat: this node's row in the fleet's node registry, written at
// startup and every kNodeHeartbeatPeriodMs, removed on a clean shutdown.
// Private to src/service.
#ifndef CODERUNNER_SRC_SERVICE_NODE_HEARTBEAT_H_
#define CODERUNNER_SRC_SERVICE_NODE_HEARTBEAT_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "coderunner/common/status.h"
#include "coderunner/store/node_registry.h"

namespace coderunner::service {

struct NodeHeartbeatOptions {
  // The row's fixed fields: id, advertised_url, engine (may be "" until
  // `engine` knows it), runtime, capacity, version, started_at_ms.
  // running and last_heartbeat_ms are set by each beat.
  store::NodeInfo node;
  // Between two beats. Default kNodeHeartbeatPeriodMs.
  std::chrono::milliseconds period{store::kNodeHeartbeatPeriodMs};
  // Jobs this node runs now; null: 0. Must be thread-safe and not block.
  std::function<int()> running;
  // The engine kind ("docker", "podman"), asked before each beat while
  // node.engine is "" (the engine may answer only later); "" when still
  // unknown. Null: never asked.
  std::function<std::string()> engine;
  // Milliseconds since the epoch; null: the wall clock.
  std::function<int64_t()> now_ms;
};

// Beat is thread-safe; Start and Stop run on one thread at a time (the
// service's). The registry must outlive it.
class NodeHeartbeat {
 public:
  NodeHeartbeat(store::NodeRegistry& registry, NodeHeartbeatOptions options);
  // Stop(/*leave=*/false): a node destroyed without Stop(true) keeps its
  // row, as a dead one does.
  ~NodeHeartbeat();
  NodeHeartbeat(const NodeHeartbeat&) = delete;
  NodeHeartbeat& operator=(const NodeHeartbeat&) = delete;

  // Beats once now (without asking `engine`, which may block on an engine
  // that does not answer), then starts the thread that beats every period.
  // A failed first beat is returned (and logged) but the thread starts
  // anyway: the store may come back. Call once.
  Status Start();

  // Writes the row now: the fixed fields (asking `engine` first while the
  // kind is unknown), running() and now_ms(). The registry's failure as
  // it is.
  Status Beat() { return BeatOnce(/*ask_engine=*/true); }

  // Stops the thread (waits for a beat under way), then with `leave`
  // removes the row (a failure is logged). Idempotent.
  void Stop(bool leave);

 private:
  Status BeatOnce(bool ask_engine);
  void Loop();

  store::NodeRegistry& registry_;
  NodeHeartbeatOptions options_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // Guarded by mu_.
  bool left_ = false;      // Guarded by mu_.
  std::mutex beat_mu_;     // Serializes Beat (and guards options_.node).
  std::thread thread_;
};

}  // namespace coderunner::service

#endif  // CODERUNNER_SRC_SERVICE_NODE_HEARTBEAT_H_
