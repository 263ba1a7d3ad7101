// OutputWatch: the service's own guard on the writable /output of every
// live container (a job's, a warm container's once it has its job, a
// sandbox's for its whole life), run on the host as root.
//
// Nothing the job does reaches it: it is a thread of the service, outside
// the container's PID namespace, cgroup and uid, so the job can neither
// signal, renice, re-limit nor starve it, and it walks the host side of
// /output as root (output_usage.h), so no mode the job sets hides a
// directory. It also counts the files the container's processes hold open
// after unlinking them. When it finds a bound broken it kills the container's processes
// itself (no engine round trip: container_processes.h), calls the owner's
// breach action (the engine's kill, and whatever the owner must know) and
// remembers which bound;
// the owner then settles /output itself once the container is gone (rolls
// a volume back, keeps only what fits of artifacts, empties a sandbox's).
//
// coderunner-init's own walk, inside the container, stays as a first line
// that stops a job a little sooner; this one is what the bounds rest on.
#ifndef CODERUNNER_ISOLATION_OUTPUT_WATCH_H_
#define CODERUNNER_ISOLATION_OUTPUT_WATCH_H_

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "coderunner/isolation/container_processes.h"
#include "coderunner/isolation/output_usage.h"

namespace coderunner::isolation {

struct OutputWatchOptions {
  // Each tree is walked on this period, and a tree whose walk takes longer
  // less often: at most 1 / walk_cost_share of the time.
  std::chrono::milliseconds min_interval{10};
  int walk_cost_share = 20;
  std::chrono::milliseconds max_interval{1000};
  // And soon after the kernel reports a change below it (inotify): at
  // most once per event_gap, and at most 1 / event_cost_share of the time
  // while it is being written (a job writes 5 MB a millisecond).
  std::chrono::microseconds event_gap{500};
  int event_cost_share = 10;
  // How often the open files of the containers' processes are looked at
  // (one pass over /proc for every tree at once).
  std::chrono::milliseconds orphan_interval{100};
};

class TreeEvents;  // src/isolation/tree_events.h

class OutputWatch {
  struct Target;

 public:
  // What the breach action is told: the bound (a kBound* word).
  using BreachAction = std::function<void(std::string_view bound)>;
  // Watching one tree; destroying it ends the watch.
  class Handle {
   public:
    ~Handle();
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    // The bound a walk found broken, "" while none was.
    std::string violation() const;
    // What the last walk found (orphans included).
    OutputUsage usage() const;

   private:
    friend class OutputWatch;
    Handle(OutputWatch* watch, std::shared_ptr<Target> target)
        : watch_(watch), target_(std::move(target)) {}
    OutputWatch* watch_;
    std::shared_ptr<Target> target_;
  };

  explicit OutputWatch(OutputWatchOptions options = {});
  // Stops the thread. Every Handle must be gone by then (and with them
  // the engine work done for them).
  ~OutputWatch();
  OutputWatch(const OutputWatch&) = delete;
  OutputWatch& operator=(const OutputWatch&) = delete;

  // Watches host directory `dir` against `limits` until the Handle is
  // destroyed; `container_id` names the container whose /output it is ("":
  // none). The first walk happens at once. The first walk that finds a
  // bound broken records it, kills the container's processes itself
  // (container_processes.h: no engine round trip) and calls `on_breach`
  // once, on a thread of its own (it may wait for the engine); destroying
  // the Handle waits for it. The container's processes are found on a
  // thread of the watch's, through /proc, once the container runs.
  // Thread-safe.
  std::unique_ptr<Handle> Watch(std::string dir, const OutputLimits& limits,
                                std::string container_id, BreachAction on_breach);

  // Trees being watched now.
  size_t size() const;

 private:
  using Clock = std::chrono::steady_clock;
  void Unwatch(const std::shared_ptr<Target>& target);
  void Loop();
  // Which targets are due at `now` (marked busy; those due for an orphan
  // look also in `orphans_due`), and in `wake` when the next one will be.
  // Requires mu_.
  std::vector<std::shared_ptr<Target>> Due(Clock::time_point now, Clock::time_point* wake,
                                           std::vector<std::shared_ptr<Target>>* orphans_due);
  // Looks at the open orphans of every target due for it; requires no lock.
  void ScanOrphans(const std::vector<std::shared_ptr<Target>>& due, Clock::time_point now);
  // Walks `t` and acts on a breach; requires no lock.
  void Check(const std::shared_ptr<Target>& t, Clock::time_point now);
  // `t`'s container's processes as last found (nullopt: none yet). Looks
  // for them again (a pass over /proc, on a thread of its own) until they
  // are found in a PID namespace of the container's: processes seen only
  // in the host's may be runc's own, before it made the namespace, or
  // gVisor's, which come and go. Requires no lock.
  std::optional<ContainerProcesses> Processes(const std::shared_ptr<Target>& t);

  const OutputWatchOptions options_;
  mutable std::mutex mu_;
  std::condition_variable idle_;  // A target's walk or engine work ended.
  std::map<uint64_t, std::shared_ptr<Target>> targets_;
  std::vector<uint64_t> forgotten_;  // Unwatched, their inotify watches not removed yet.
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  const std::unique_ptr<TreeEvents> events_;  // Wakes the thread (and Wake()s it).
  std::thread thread_;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_OUTPUT_WATCH_H_
