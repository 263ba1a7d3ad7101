#include "coderunner/isolation/output_watch.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

#include "tree_events.h"

namespace coderunner::isolation {
namespace {

// The watch thread runs under the real-time round-robin policy at this
// priority: it preempts every job process (all run under the normal
// policy) the moment an event wakes it, however busy the cores are. Its
// own CPU is bounded by its cost shares (OutputWatchOptions) and by the
// kernel's real-time throttling. Without CAP_SYS_NICE, or where the cgroup
// refuses real-time threads, it falls back to this nice value (jobs run at
// 0).
constexpr int kWatchRealtimePriority = 1;
constexpr int kWatchNice = -10;

// Puts the calling thread ahead of every job for the CPU; best effort.
void RaiseWatchPriority() {
  sched_param param{};
  param.sched_priority = kWatchRealtimePriority;
  const int rt = pthread_setschedparam(pthread_self(), SCHED_RR, &param);
  if (rt == 0) return;
  if (setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kWatchNice) != 0) {
    spdlog::warn("the /output watch keeps its priority: setpriority: {}", strerror(errno));
    return;
  }
  spdlog::info("the /output watch runs at nice {} (real-time policy refused: {})", kWatchNice,
               strerror(rt));
}

// Once per process: files held open after unlinking go uncounted.
void WarnProcessesUnseen() {
  static std::once_flag once;
  std::call_once(once, [] {
    spdlog::warn(
        "the /output guard found no process of a container that broke a bound (not in this "
        "process's /proc?): only the engine kills it, and files a job holds open after unlinking "
        "them are not counted. Run the service in the host's PID namespace (compose: pid: host) "
        "with CAP_SYS_PTRACE");
  });
}

}  // namespace

// One watched tree. The walk's own state is the watch thread's; the rest
// is guarded by the watch's mu_. Finding the container's processes and the
// owner's breach action run on threads of their own, so that neither a
// pass over /proc nor a slow engine delays a walk of any tree.
struct OutputWatch::Target {
  uint64_t id = 0;
  std::string dir;
  OutputLimits limits;
  std::string container_id;
  BreachAction on_breach;
  // The watch thread's.
  Clock::duration find_gap{};  // Before looking for its processes again.
  OrphanUsage orphans;
  dev_t device = 0;
  int64_t block_bytes = 512;
  Clock::time_point next_walk;
  Clock::time_point next_orphans;
  Clock::time_point last_walk;
  Clock::duration event_gap{};  // Shortest time between two walks an event asks for.
  // Guarded by mu_.
  bool removed = false;
  bool busy = false;       // The watch thread is walking it.
  int in_flight = 0;       // Engine work started for it and not over yet.
  bool resolving = false;  // Its processes are being asked for.
  bool processes_known = false;
  ContainerProcesses processes;
  std::string violation;
  OutputUsage usage;
};

OutputWatch::OutputWatch(OutputWatchOptions options)
    : options_(options), events_(std::make_unique<TreeEvents>()) {
  if (!events_->ok()) {
    spdlog::warn("the /output watch gets no inotify instance: it walks on its period alone");
  }
  thread_ = std::thread([this] {
    // Ahead of every job for the CPU: a job's processes busy on every core
    // must not delay the walk that stops them.
    RaiseWatchPriority();
    Loop();
  });
}

OutputWatch::~OutputWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  events_->Wake();
  if (thread_.joinable()) thread_.join();
}

std::unique_ptr<OutputWatch::Handle> OutputWatch::Watch(std::string dir, const OutputLimits& limits,
                                                        std::string container_id,
                                                        BreachAction on_breach) {
  auto t = std::make_shared<Target>();
  t->dir = std::move(dir);
  t->limits = limits;
  t->container_id = std::move(container_id);
  t->on_breach = std::move(on_breach);
  t->next_walk = t->next_orphans = Clock::now();
  t->find_gap = options_.min_interval;
  {
    std::lock_guard<std::mutex> lock(mu_);
    t->id = next_id_++;
    targets_.emplace(t->id, t);
  }
  events_->Wake();
  return std::unique_ptr<Handle>(new Handle(this, std::move(t)));
}

size_t OutputWatch::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return targets_.size();
}

void OutputWatch::Unwatch(const std::shared_ptr<Target>& target) {
  std::unique_lock<std::mutex> lock(mu_);
  target->removed = true;
  if (targets_.erase(target->id) > 0) forgotten_.push_back(target->id);
  // A walk or engine work in progress may still use the target's
  // callbacks and what they captured: the owner may free those only once
  // they are over.
  idle_.wait(lock, [&] { return !target->busy && target->in_flight == 0; });
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
  Clock::time_point wake = Clock::now();
  bool listen = true;  // False while an event's walk is due anyway.
  for (;;) {
    bool overflow = false;
    const std::map<uint64_t, TreeEvents::Change> changes = events_->Wait(wake, listen, &overflow);
    listen = changes.empty() && !overflow;
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    for (uint64_t id : forgotten_) events_->Forget(id);
    forgotten_.clear();
    const Clock::time_point now = Clock::now();
    for (auto& [id, t] : targets_) {
      auto c = changes.find(id);
      if (!overflow && c == changes.end()) continue;
      // Soon, not at once for every write: at most once per event gap.
      t->next_walk = std::min(t->next_walk, std::max(now, t->last_walk + t->event_gap));
      if (overflow || c->second.removed) t->next_orphans = std::min(t->next_orphans, now);
    }
    std::vector<std::shared_ptr<Target>> orphans_due;
    std::vector<std::shared_ptr<Target>> due = Due(now, &wake, &orphans_due);
    if (due.empty()) continue;
    lock.unlock();
    ScanOrphans(orphans_due, now);
    for (const auto& t : due) Check(t, now);
    lock.lock();
    for (const auto& t : due) t->busy = false;
    idle_.notify_all();
    wake = Clock::now();  // Look again at once: events came in meanwhile.
    listen = true;
  }
}

std::vector<std::shared_ptr<OutputWatch::Target>> OutputWatch::Due(
    Clock::time_point now, Clock::time_point* wake,
    std::vector<std::shared_ptr<Target>>* orphans_due) {
  *wake = now + options_.max_interval;
  std::vector<std::shared_ptr<Target>> due;
  for (auto& [id, t] : targets_) {
    if (!t->violation.empty()) continue;  // Its owner is stopping it.
    const bool orphans = !t->container_id.empty() && t->next_orphans <= now;
    if (t->next_walk <= now || orphans) {
      t->busy = true;
      due.push_back(t);
      if (orphans) orphans_due->push_back(t);
      continue;
    }
    *wake = std::min(*wake, t->next_walk);
    if (!t->container_id.empty()) *wake = std::min(*wake, t->next_orphans);
  }
  return due;
}

void OutputWatch::ScanOrphans(const std::vector<std::shared_ptr<Target>>& due,
                              Clock::time_point now) {
  std::vector<OrphanQuery> queries;
  std::vector<Target*> asked;
  for (const auto& t : due) {
    t->next_orphans = now + options_.orphan_interval;
    std::optional<ContainerProcesses> processes = Processes(t);
    if (!processes) {
      // Not found (the container may not run yet): look again soon, then
      // less often, never less than at the orphan interval.
      t->next_orphans = now + t->find_gap;
      t->find_gap = std::min<Clock::duration>(t->find_gap * 2, options_.orphan_interval);
      continue;
    }
    if (t->device == 0) continue;  // Known after the first walk.
    queries.push_back({*processes, t->device, t->block_bytes});
    asked.push_back(t.get());
  }
  if (queries.empty()) return;
  std::vector<OrphanUsage> found = OpenOrphans(queries);
  for (size_t i = 0; i < asked.size(); ++i) asked[i]->orphans = found[i];
}

std::optional<ContainerProcesses> OutputWatch::Processes(const std::shared_ptr<Target>& t) {
  std::lock_guard<std::mutex> lock(mu_);
  // A PID namespace is the container's for its whole life. Processes seen
  // only in the host's are gVisor's sandbox, or runc's own before it made
  // the namespace (they join the container's cgroup first): looked for
  // again, each time, while they are used.
  const bool settled = t->processes_known && t->processes.pid_namespace != 0;
  if (!settled && !t->resolving && !t->removed) {
    t->resolving = true;
    ++t->in_flight;
    std::thread([this, t] {
      std::optional<ContainerProcesses> found = FindContainerProcesses(t->container_id);
      std::lock_guard<std::mutex> lock(mu_);
      t->resolving = false;
      if (found) {
        t->processes = std::move(*found);
        t->processes_known = true;
      }
      --t->in_flight;
      idle_.notify_all();
    }).detach();
  }
  if (t->processes_known) return t->processes;
  return std::nullopt;
}

void OutputWatch::Check(const std::shared_ptr<Target>& t, Clock::time_point now) {
  const Clock::time_point start = Clock::now();
  OutputUsage usage =
      MeasureOutput(t->dir, t->limits, [&](int dir_fd) { events_->Add(t->id, dir_fd); });
  const Clock::duration cost = Clock::now() - start;
  t->last_walk = start;
  t->device = usage.device;
  t->block_bytes = usage.block_bytes;
  AddOrphans(t->orphans, usage);
  const std::string_view bound = BrokenBound(t->limits, usage);
  bool act = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    t->usage = usage;
    if (!bound.empty() && t->violation.empty() && !t->removed) {
      t->violation = std::string(bound);
      act = true;
      ++t->in_flight;
    }
  }
  if (act) {
    // At once, from here, whatever the engine does: the processes found
    // before first (their cgroups alone are read), then every process the
    // cgroup names now. The owner's action (the engine's kill) follows on
    // a thread of its own.
    if (!t->container_id.empty()) {
      std::optional<ContainerProcesses> known;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (t->processes_known) known = t->processes;
      }
      const int killed =
          (known ? KillProcesses(*known) : 0) + KillContainerProcesses(t->container_id);
      if (killed == 0) WarnProcessesUnseen();
    }
    const std::string word = std::string(bound);
    std::thread([this, t, word] {
      if (t->on_breach) t->on_breach(word);
      std::lock_guard<std::mutex> lock(mu_);
      --t->in_flight;
      idle_.notify_all();
    }).detach();
  }
  const auto interval =
      std::chrono::duration_cast<std::chrono::milliseconds>(cost * options_.walk_cost_share);
  t->next_walk = now + std::clamp(interval, options_.min_interval, options_.max_interval);
  t->event_gap = std::clamp<Clock::duration>(cost * options_.event_cost_share, options_.event_gap,
                                             options_.max_interval);
}

}  // namespace coderunner::isolation
