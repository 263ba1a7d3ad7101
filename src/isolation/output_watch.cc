#include "coderunner/isolation/output_watch.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>

namespace coderunner::isolation {
namespace {

// Once per process: files held open after unlinking go uncounted.
void WarnProcessesUnseen() {
  static std::once_flag once;
  std::call_once(once, [] {
    spdlog::warn(
        "the /output guard cannot see the processes of containers (not in this process's /proc): "
        "files a job holds open after unlinking them are not counted, and only the engine kills "
        "a container that breaks a bound. Run the service in the host's PID namespace (compose: "
        "pid: host) with CAP_SYS_PTRACE");
  });
}

}  // namespace

struct OutputWatch::Target {
  std::string dir;
  OutputLimits limits;
  BreachAction on_breach;
  HostProcesses find_processes;
  // Used by the watch's thread only.
  bool processes_known = false;
  ContainerProcesses processes;
  OrphanUsage orphans;
  dev_t device = 0;
  int64_t block_bytes = 512;
  Clock::time_point next_walk;
  Clock::time_point next_orphans;
  // Guarded by the watch's mu_.
  bool removed = false;
  bool busy = false;  // The thread is checking it (or running its action).
  std::string violation;
  OutputUsage usage;
};

OutputWatch::OutputWatch(OutputWatchOptions options) : options_(options) {
  thread_ = std::thread([this] { Loop(); });
}

OutputWatch::~OutputWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::unique_ptr<OutputWatch::Handle> OutputWatch::Watch(std::string dir, const OutputLimits& limits,
                                                        BreachAction on_breach,
                                                        HostProcesses processes) {
  auto t = std::make_shared<Target>();
  t->dir = std::move(dir);
  t->limits = limits;
  t->on_breach = std::move(on_breach);
  t->find_processes = std::move(processes);
  t->next_walk = t->next_orphans = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    targets_.emplace(next_id_++, t);
  }
  cv_.notify_all();
  return std::unique_ptr<Handle>(new Handle(this, std::move(t)));
}

size_t OutputWatch::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return targets_.size();
}

void OutputWatch::Unwatch(const std::shared_ptr<Target>& target) {
  std::unique_lock<std::mutex> lock(mu_);
  target->removed = true;
  for (auto it = targets_.begin(); it != targets_.end(); ++it) {
    if (it->second == target) {
      targets_.erase(it);
      break;
    }
  }
  // A check in progress may still use the target's action and what it
  // captured: the owner may free those only once it is over.
  idle_.wait(lock, [&] { return !target->busy; });
}

OutputWatch::Handle::~Handle() { watch_->Unwatch(target_); }

std::string OutputWatch::Handle::violation() const {
  std::lock_guard<std::mutex> lock(watch_->mu_);
  return target_->violation;
}

OutputUsage OutputWatch::Handle::usage() const {
  std::lock_guard<std::mutex> lock(watch_->mu_);
  return target_->usage;
}

void OutputWatch::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const Clock::time_point now = Clock::now();
    Clock::time_point wake = now + options_.max_interval;
    std::vector<std::shared_ptr<Target>> due;
    std::vector<std::shared_ptr<Target>> orphans_due;
    for (auto& [id, t] : targets_) {
      if (!t->violation.empty()) continue;  // Its owner is stopping it.
      const bool orphans = t->find_processes && t->next_orphans <= now;
      if (t->next_walk <= now || orphans) {
        t->busy = true;
        due.push_back(t);
        if (orphans) orphans_due.push_back(t);
      } else {
        wake = std::min(wake, t->next_walk);
      }
    }
    if (due.empty()) {
      cv_.wait_until(lock, wake);
      continue;
    }
    lock.unlock();
    ScanOrphans(orphans_due, now);
    for (const auto& t : due) Check(*t, now);
    lock.lock();
    for (const auto& t : due) t->busy = false;
    idle_.notify_all();
  }
}

void OutputWatch::ScanOrphans(const std::vector<std::shared_ptr<Target>>& due,
                              Clock::time_point now) {
  std::vector<OrphanQuery> queries;
  std::vector<Target*> asked;
  for (const auto& t : due) {
    t->next_orphans = now + options_.orphan_interval;
    if (!ResolveProcesses(*t)) continue;  // Not known yet: asked again next time.
    // The device is known once the tree has been walked.
    if (t->device == 0) continue;
    queries.push_back({t->processes, t->device, t->block_bytes});
    asked.push_back(t.get());
  }
  if (queries.empty()) return;
  std::vector<OrphanUsage> found = OpenOrphans(queries);
  for (size_t i = 0; i < asked.size(); ++i) asked[i]->orphans = found[i];
}

OutputWatch::HostProcesses ProcessesFromEngine(engine::ContainerClient& containers,
                                               std::string id) {
  return [&containers, id = std::move(id)]() -> std::optional<ContainerProcesses> {
    auto state = containers.Inspect(id);
    if (!state.ok() || !state->running || state->pid <= 0) return std::nullopt;
    return ProcessesOf(state->pid, state->id);
  };
}

bool OutputWatch::ResolveProcesses(Target& t) {
  if (t.processes_known) return true;
  if (!t.find_processes) return false;
  std::optional<ContainerProcesses> found = t.find_processes();
  if (!found) return false;
  t.processes = *found;
  t.processes_known = true;
  if (t.processes.pid == 0) WarnProcessesUnseen();
  return true;
}

void OutputWatch::Check(Target& t, Clock::time_point now) {
  const Clock::time_point start = Clock::now();
  OutputUsage usage = MeasureOutput(t.dir, t.limits);
  const Clock::duration cost = Clock::now() - start;
  t.device = usage.device;
  t.block_bytes = usage.block_bytes;
  AddOrphans(t.orphans, usage);
  const std::string_view bound = BrokenBound(t.limits, usage);
  bool act = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    t.usage = usage;
    if (!bound.empty() && t.violation.empty() && !t.removed) {
      t.violation = std::string(bound);
      act = true;
    }
  }
  if (act) {
    // At once, from here; the owner's action (the engine's kill) follows.
    if (ResolveProcesses(t)) (void)KillContainerProcesses(t.processes);
    if (t.on_breach) t.on_breach(bound);
  }
  const auto interval =
      std::chrono::duration_cast<std::chrono::milliseconds>(cost * options_.walk_cost_share);
  t.next_walk = now + std::clamp(interval, options_.min_interval, options_.max_interval);
}

}  // namespace coderunner::isolation
