#include "node_heartbeat.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "coderunner/common/wall_clock.h"

namespace coderunner::service {

NodeHeartbeat::NodeHeartbeat(store::NodeRegistry& registry, NodeHeartbeatOptions options)
    : registry_(registry), options_(std::move(options)) {
  if (!options_.now_ms) options_.now_ms = WallClockMs;
}

NodeHeartbeat::~NodeHeartbeat() { Stop(/*leave=*/false); }

Status NodeHeartbeat::Start() {
  Status first = BeatOnce(/*ask_engine=*/false);
  if (!first.ok()) {
    spdlog::warn("node registry: first heartbeat of {} failed: {}", options_.node.id,
                 first.ToString());
  }
  thread_ = std::thread([this] { Loop(); });
  return first;
}

Status NodeHeartbeat::BeatOnce(bool ask_engine) {
  std::lock_guard<std::mutex> lock(beat_mu_);
  store::NodeInfo& node = options_.node;
  if (ask_engine && node.engine.empty() && options_.engine) node.engine = options_.engine();
  node.running = options_.running ? options_.running() : 0;
  return registry_.Heartbeat(node, options_.now_ms());
}

void NodeHeartbeat::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, options_.period, [this] { return stopping_; })) {
    lock.unlock();
    Status beat = Beat();
    // Logged at each failure: a node whose row ages looks dead to the fleet.
    if (!beat.ok()) spdlog::warn("node registry: heartbeat failed: {}", beat.ToString());
    lock.lock();
  }
}

void NodeHeartbeat::Stop(bool leave) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (!leave) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (left_) return;
    left_ = true;
  }
  std::lock_guard<std::mutex> beat(beat_mu_);
  Status removed = registry_.Remove(options_.node.id);
  if (!removed.ok()) {
    spdlog::warn("node registry: could not remove {}: {}", options_.node.id, removed.ToString());
  }
}

}  // namespace coderunner::service
