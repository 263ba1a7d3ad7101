#include "coderunner/isolation/output_snapshot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <tuple>

#include "coderunner/isolation/output_usage.h"
#include "coderunner/isolation/safe_tree.h"

namespace coderunner::isolation {
namespace {

// The names in directory `fd` (not taken over), without "." and "..";
// false if the listing failed. Read through a file description of its own,
// so the caller's position in `fd` does not move.
bool ListNames(int fd, std::vector<std::string>& names) {
  int copy = openat(fd, ".", kTreeDirOpenFlags);
  DIR* d = copy < 0 ? nullptr : fdopendir(copy);
  if (d == nullptr) {
    if (copy >= 0) close(copy);
    return false;
  }
  struct dirent* e;
  for (errno = 0; (e = readdir(d)) != nullptr; errno = 0) {
    std::string_view n(e->d_name);
    if (n != "." && n != "..") names.emplace_back(n);
  }
  const bool ok = errno == 0;
  closedir(d);
  return ok;
}

// Entry `name` of `dir` as a snapshot records it (never following a
// symlink); false (errno set) if it cannot be looked at.
bool Describe(int dir, const char* name, OutputSnapshot::Entry& out) {
  struct statx sx;
  if (statx(dir, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &sx) != 0) {
    return false;
  }
  out.dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
  out.ino = sx.stx_ino;
  out.type = sx.stx_mode & S_IFMT;
  out.birth_ns = (sx.stx_mask & STATX_BTIME) != 0
                     ? static_cast<int64_t>(sx.stx_btime.tv_sec) * 1000000000 + sx.stx_btime.tv_nsec
                     : 0;
  out.size = static_cast<off_t>(sx.stx_size);
  out.blocks = static_cast<blkcnt_t>(sx.stx_blocks);
  return true;
}

// Truncates regular file `name` of `dir` to `size`, through an fd proven
// to be that same file (never a FIFO or a link planted since).
bool CutBack(int dir, const std::string& name, const OutputSnapshot::Entry& seen, off_t size) {
  UniqueFd f(openat(dir, name.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat now;
  return f.valid() && fstat(f.get(), &now) == 0 && S_ISREG(now.st_mode) && now.st_ino == seen.ino &&
         now.st_dev == seen.dev && ftruncate(f.get(), size) == 0;
}

}  // namespace

StatusOr<OutputSnapshot> OutputSnapshot::Take(const std::string& dir, int64_t max_entries) {
  OutputSnapshot snap;
  bool extra = false;
  OutputLimits limits;
  limits.max_entries = max_entries;
  // The walk opens every directory; the entries themselves are recorded
  // from a listing of each, as it opened it.
  OutputUsage usage = MeasureOutput(dir, limits, [&](int dir_fd) {
    std::vector<std::string> names;
    if (!ListNames(dir_fd, names)) extra = true;
    for (const std::string& n : names) {
      Entry e;
      if (Describe(dir_fd, n.c_str(), e)) {
        snap.known_.push_back(e);
      } else if (errno != ENOENT) {
        extra = true;
      }
    }
  });
  if (extra || usage.unreadable || usage.truncated || usage.too_deep) {
    return FailedPreconditionError(dir + " could not be recorded whole before the run",
                                   kReasonOutputUnreadable);
  }
  std::sort(snap.known_.begin(), snap.known_.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.dev, a.ino) < std::tie(b.dev, b.ino);
  });
  return snap;
}

const OutputSnapshot::Entry* OutputSnapshot::Lookup(const Entry& now) const {
  auto it = std::lower_bound(known_.begin(), known_.end(), now, [](const Entry& a, const Entry& b) {
    return std::tie(a.dev, a.ino) < std::tie(b.dev, b.ino);
  });
  if (it == known_.end() || it->dev != now.dev || it->ino != now.ino) return nullptr;
  // The same number, but another entry: made during the run.
  if (it->type != now.type) return nullptr;
  if (it->birth_ns != 0 && now.birth_ns != 0 && it->birth_ns != now.birth_ns) return nullptr;
  return &*it;
}

bool OutputSnapshot::Undo(int dir_fd, int depth) const {
  std::vector<std::string> names;
  bool ok = ListNames(dir_fd, names);
  for (const std::string& name : names) {
    Entry now;
    if (!Describe(dir_fd, name.c_str(), now)) {
      if (errno != ENOENT) ok = false;
      continue;
    }
    const Entry* k = Lookup(now);
    if (k == nullptr) {
      ok = RemoveEntryAt(dir_fd, name) && ok;
    } else if (now.type == S_IFDIR) {
      UniqueFd sub(depth + 1 < kOutputMaxDepth ? openat(dir_fd, name.c_str(), kTreeDirOpenFlags)
                                               : -1);
      ok = sub.valid() && Undo(sub.get(), depth + 1) && ok;
    } else if (now.type == S_IFREG && (now.size > k->size || now.blocks > k->blocks)) {
      ok = CutBack(dir_fd, name, now, std::min(now.size, k->size)) && ok;
    }
  }
  return ok;
}

Status OutputSnapshot::RollBack(const std::string& dir) const {
  UniqueFd root(open(dir.c_str(), kTreeDirOpenFlags));
  if (!root.valid() || !Undo(root.get(), 0)) {
    return InternalError("could not undo every write of the run below " + dir, "output_rollback");
  }
  return OkStatus();
}

}  // namespace coderunner::isolation
