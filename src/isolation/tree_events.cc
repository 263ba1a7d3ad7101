#include "tree_events.h"

#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace coderunner::isolation {
namespace {

// Writes, new entries, entries moved in or out, removals. Not IN_ACCESS or
// IN_OPEN: reads change nothing the walk counts.
constexpr uint32_t kMask =
    IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB | IN_ONLYDIR;

}  // namespace

TreeEvents::TreeEvents() {
  inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

TreeEvents::~TreeEvents() {
  if (inotify_fd_ >= 0) close(inotify_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

void TreeEvents::Add(uint64_t tree, int dir_fd) {
  if (inotify_fd_ < 0) return;
  std::vector<int>& mine = wds_[tree];
  if (mine.size() >= kMaxDirectories) return;
  const std::string path = "/proc/self/fd/" + std::to_string(dir_fd);
  const int wd = inotify_add_watch(inotify_fd_, path.c_str(), kMask);
  if (wd < 0) return;
  auto [it, added] = tree_of_.emplace(wd, tree);
  if (!added && it->second != tree) {
    // The inode another tree watched (its directory renamed into this
    // one): it is this tree's now.
    auto& theirs = wds_[it->second];
    theirs.erase(std::remove(theirs.begin(), theirs.end(), wd), theirs.end());
    it->second = tree;
    added = true;
  }
  if (added) mine.push_back(wd);
}

void TreeEvents::Forget(uint64_t tree) {
  auto it = wds_.find(tree);
  if (it == wds_.end()) return;
  for (int wd : it->second) {
    tree_of_.erase(wd);
    (void)inotify_rm_watch(inotify_fd_, wd);
  }
  wds_.erase(it);
}

std::map<uint64_t, TreeEvents::Change> TreeEvents::Wait(
    std::chrono::steady_clock::time_point deadline, bool listen, bool* overflow) {
  *overflow = false;
  std::map<uint64_t, Change> out;
  const auto left = std::max<std::chrono::nanoseconds>(deadline - std::chrono::steady_clock::now(),
                                                       std::chrono::nanoseconds(0));
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {inotify_fd_, POLLIN, 0}};
  const nfds_t n = listen && inotify_fd_ >= 0 ? 2 : 1;
  // To the microsecond: a write at 5 GB/s adds 5 MB a millisecond.
  const timespec timeout{static_cast<time_t>(left.count() / 1000000000),
                         static_cast<long>(left.count() % 1000000000)};
  if (ppoll(fds, n, &timeout, nullptr) > 0 && (fds[0].revents & POLLIN) != 0) {
    uint64_t value;
    (void)!read(wake_fd_, &value, sizeof(value));
  }
  Drain(out, overflow);
  return out;
}

void TreeEvents::Drain(std::map<uint64_t, Change>& out, bool* overflow) {
  if (inotify_fd_ < 0) return;
  alignas(inotify_event) char buf[16384];
  for (;;) {
    const ssize_t len = read(inotify_fd_, buf, sizeof(buf));
    if (len <= 0) return;  // EAGAIN: nothing more.
    for (ssize_t at = 0; at < len;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      if ((e->mask & IN_Q_OVERFLOW) != 0) *overflow = true;
      auto tree = tree_of_.find(e->wd);
      if (tree == tree_of_.end()) continue;
      if ((e->mask & IN_IGNORED) != 0) {  // Its directory is gone.
        auto& mine = wds_[tree->second];
        mine.erase(std::remove(mine.begin(), mine.end(), e->wd), mine.end());
        tree_of_.erase(tree);
        continue;
      }
      Change& c = out[tree->second];
      c.modified = true;
      if ((e->mask & (IN_DELETE | IN_MOVED_FROM)) != 0) c.removed = true;
    }
  }
}

void TreeEvents::Wake() {
  if (wake_fd_ < 0) return;
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
}

}  // namespace coderunner::isolation
