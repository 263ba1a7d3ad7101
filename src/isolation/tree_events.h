// TreeEvents: what wakes the /output watch (output_watch.h) between its
// periodic walks: a change below a watched tree, reported by the kernel
// (inotify) as the job makes it, or a Wake from another thread. With it the
// watch walks a tree within a millisecond or so of a write instead of at
// its next period, and an idle tree costs nothing between periods.
//
// Each directory a walk opens is watched through its fd (by
// /proc/self/fd/N, so the watch is on the very inode the walk opened,
// never on whatever a path names later); a directory the job removes drops
// out by itself. A tree that has more directories than kMaxDirectories
// relies on the periodic walk for the rest. Everything but Wake is for the
// watch's own thread.
#ifndef CODERUNNER_ISOLATION_TREE_EVENTS_H_
#define CODERUNNER_ISOLATION_TREE_EVENTS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace coderunner::isolation {

class TreeEvents {
 public:
  // Directories watched per tree at most.
  static constexpr size_t kMaxDirectories = 1024;

  // What happened below one tree since the last Wait.
  struct Change {
    bool modified = false;  // A file written, created, moved in, or anything at all.
    bool removed = false;   // An entry removed: a file may be held open nameless now.
  };

  TreeEvents();
  ~TreeEvents();
  TreeEvents(const TreeEvents&) = delete;
  TreeEvents& operator=(const TreeEvents&) = delete;

  // False when the kernel gave no inotify instance (the watch then walks
  // on its period alone).
  bool ok() const { return inotify_fd_ >= 0; }

  // Watches the directory open at `dir_fd` on behalf of tree `tree`.
  void Add(uint64_t tree, int dir_fd);
  // Stops watching every directory of `tree`.
  void Forget(uint64_t tree);

  // Waits until `deadline`, a Wake or (with `listen`) a change, and
  // returns the trees that changed since the last call. `*overflow` is set
  // when the kernel lost events (then every tree must be walked). Without
  // `listen` changes are only collected: the caller has a walk due by the
  // deadline anyway, and must not spin on every write until then.
  std::map<uint64_t, Change> Wait(std::chrono::steady_clock::time_point deadline, bool listen,
                                  bool* overflow);

  // Ends a Wait in progress (or the next one) at once. Thread-safe.
  void Wake();

 private:
  void Drain(std::map<uint64_t, Change>& out, bool* overflow);

  int inotify_fd_ = -1;
  int wake_fd_ = -1;                                    // An eventfd.
  std::unordered_map<int, uint64_t> tree_of_;           // Watch descriptor -> tree.
  std::unordered_map<uint64_t, std::vector<int>> wds_;  // Tree -> its watch descriptors.
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_TREE_EVENTS_H_
