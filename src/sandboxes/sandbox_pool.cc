#include "sandbox_pool.h"

#include <spdlog/spdlog.h>

#include <vector>

#include "coderunner/common/ids.h"

namespace coderunner::sandboxes {
namespace {

// After a launch fails (the engine away, the host full), the filler waits
// this long before the next one, instead of asking in a loop.
constexpr auto kLaunchFailureBackoff = std::chrono::seconds(2);

}  // namespace

SandboxPool::SandboxPool(int per_shape, Launcher launch, ReadyCount on_ready)
    : per_shape_(per_shape), launch_(std::move(launch)), on_ready_(std::move(on_ready)) {}

void SandboxPool::ReportReady() {
  if (!on_ready_) return;
  size_t ready = 0;
  for (const auto& [key, shape] : shapes_) ready += shape.ready.size();
  on_ready_(ready);
}

SandboxPool::~SandboxPool() { Stop(); }

std::string SandboxPool::ShapeOf(const isolation::JobSpec& spec) {
  const auto& l = spec.limits;
  std::string key = spec.language.name + "|" + spec.runtime + "|" + std::to_string(spec.home_bytes);
  for (int64_t v : {l.timeout_ms, l.cpu_ms, l.memory_bytes, l.pids, l.output_bytes, l.tmp_bytes}) {
    key += "|" + std::to_string(v);
  }
  return key + "|" + std::to_string(l.cpus);
}

void SandboxPool::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = false;
  if (!filler_.joinable()) filler_ = std::thread([this] { FillLoop(); });
}

void SandboxPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (filler_.joinable()) filler_.join();
  std::map<std::string, Shape> shapes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shapes.swap(shapes_);
    ReportReady();
  }
  for (auto& [key, shape] : shapes) {
    for (auto& s : shape.ready) Remove(std::move(s));
  }
}

std::unique_ptr<LiveSandbox> SandboxPool::Take(const isolation::JobSpec& spec,
                                               const ReplDriver& driver) {
  const std::string key = ShapeOf(spec);
  std::vector<std::unique_ptr<LiveSandbox>> dropped;
  std::unique_ptr<LiveSandbox> taken;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return nullptr;
    auto it = shapes_.find(key);
    if (it == shapes_.end()) {
      if (shapes_.size() >= kMaxShapes) {
        auto oldest = shapes_.begin();
        for (auto s = shapes_.begin(); s != shapes_.end(); ++s) {
          if (s->second.asked_at < oldest->second.asked_at) oldest = s;
        }
        for (auto& s : oldest->second.ready) dropped.push_back(std::move(s));
        shapes_.erase(oldest);
      }
      it = shapes_.emplace(key, Shape{spec, driver, {}, 0, {}}).first;
    }
    it->second.asked_at = std::chrono::steady_clock::now();
    // One that died while it waited (the engine restarted) is no use.
    while (!it->second.ready.empty() && taken == nullptr) {
      std::unique_ptr<LiveSandbox> s = std::move(it->second.ready.front());
      it->second.ready.pop_front();
      if (s->alive()) {
        taken = std::move(s);
      } else {
        dropped.push_back(std::move(s));
      }
    }
    ReportReady();
  }
  cv_.notify_all();
  for (auto& s : dropped) Remove(std::move(s));
  return taken;
}

void SandboxPool::GiveBack(std::unique_ptr<LiveSandbox> sandbox) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = shapes_.find(ShapeOf(sandbox->spec()));
    if (!stopping_ && it != shapes_.end()) {
      it->second.ready.push_front(std::move(sandbox));
      ReportReady();
      return;
    }
  }
  Remove(std::move(sandbox));
}

std::string SandboxPool::NextToFill() {
  for (auto& [key, shape] : shapes_) {
    if (static_cast<int>(shape.ready.size()) + shape.launching < per_shape_) {
      ++shape.launching;
      return key;
    }
  }
  return "";
}

void SandboxPool::FillLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const std::string key = NextToFill();
    if (key.empty()) {
      cv_.wait(lock);
      continue;
    }
    isolation::JobSpec spec = shapes_[key].spec;
    spec.id = NewId("sbx");
    const ReplDriver driver = shapes_[key].driver;
    lock.unlock();
    StatusOr<std::unique_ptr<LiveSandbox>> launched = launch_(spec, driver);
    lock.lock();
    auto it = shapes_.find(key);
    if (it != shapes_.end()) --it->second.launching;
    if (!launched.ok()) {
      spdlog::warn("sandbox pool: launching a {} sandbox ahead: {}", spec.language.name,
                   launched.status().ToString());
      cv_.wait_for(lock, kLaunchFailureBackoff, [this] { return stopping_; });
      continue;
    }
    if (it != shapes_.end() && !stopping_) {
      it->second.ready.push_back(std::move(*launched));
      ReportReady();
      continue;
    }
    lock.unlock();  // Forgotten or stopping: it goes.
    Remove(std::move(*launched));
    lock.lock();
  }
}

void SandboxPool::Remove(std::unique_ptr<LiveSandbox> sandbox) {
  Status removed = sandbox->Destroy();
  if (!removed.ok()) {
    spdlog::warn("sandbox pool: removing a ready sandbox: {}", removed.ToString());
  }
}

}  // namespace coderunner::sandboxes
