#include "coderunner/isolation/artifacts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>

#include "coderunner/common/sha256.h"
#include "coderunner/isolation/file_path.h"
#include "coderunner/isolation/mechanism.h"
#include "coderunner/isolation/workspace.h"

namespace coderunner::isolation {
namespace {

// A kept file: its hash and what it holds on disk.
struct Sealed {
  std::string sha256;
  int64_t disk_bytes = 0;
};

// Frees what the open file `fd` (size `size`) holds past its end, blocks
// preallocated with fallocate KEEP_SIZE: a kept artifact holds its content
// and no more. Written through a second open of the same inode (the first
// is read-only), never through a path the job could have changed.
int64_t TrimPreallocation(int fd, int64_t size) {
  struct stat st;
  if (fstat(fd, &st) != 0) return 0;
  int64_t block = st.st_blksize > 0 ? st.st_blksize : 4096;
  int64_t allocated = static_cast<int64_t>(st.st_blocks) * 512;
  if (allocated <= (size + block - 1) / block * block) return allocated;
  UniqueFd w(open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_WRONLY | O_CLOEXEC));
  if (w.valid() && ftruncate(w.get(), size) == 0 && fstat(fd, &st) == 0) {
    allocated = static_cast<int64_t>(st.st_blocks) * 512;
  }
  return allocated;
}

// Hashes the regular file `path` below `dir` and hands it to root. The size
// must still be what the listing said: nothing writes the tree any more, so
// a difference means it is not the file we listed.
StatusOr<Sealed> HashAndSeal(const std::string& dir, const TreeFile& file, int max_depth) {
  CR_ASSIGN_OR_RETURN(UniqueFd fd, OpenTreeFile(dir, file.path, max_depth));
  Sha256 hash;
  int64_t seen = 0;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return InternalError("read artifact: " + std::string(strerror(errno)), "tree_io");
    if (n == 0) break;
    seen += n;
    if (seen > file.size) break;
    hash.Update(std::string_view(buf, static_cast<size_t>(n)));
  }
  if (seen != file.size) return InternalError("artifact changed while read", "tree_io");
  Sealed sealed{hash.HexDigest(), TrimPreallocation(fd.get(), file.size)};
  // Through the fd: these calls can never land on anything but this file.
  if (fchown(fd.get(), 0, 0) != 0 || fchmod(fd.get(), 0600) != 0) {
    return InternalError("seal artifact: " + std::string(strerror(errno)), "tree_io");
  }
  return sealed;
}

// Directories become root-owned 0700 (the tree is the service's now, and
// no other host user may read a tenant's files).
void SealDirectories(int dir, int depth) {
  if (depth > 64) return;
  if (fchown(dir, 0, 0) != 0 || fchmod(dir, 0700) != 0) return;
  int copy = dup(dir);
  if (copy < 0) return;
  DIR* d = fdopendir(copy);
  if (d == nullptr) {
    close(copy);
    return;
  }
  while (struct dirent* e = readdir(d)) {
    if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || strcmp(e->d_name, "..") == 0)) continue;
    UniqueFd sub(openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub.valid()) SealDirectories(sub.get(), depth + 1);
  }
  closedir(d);
}

}  // namespace

StatusOr<std::string> CreateOutputDir(const std::string& root, const std::string& job_id,
                                      int64_t uid) {
  CR_RETURN_IF_ERROR(SplitSafeRelativePath(job_id, 1).status());
  if (mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) {
    return InternalError("create " + root + ": " + strerror(errno), "workspace_io");
  }
  std::string path = root + "/" + job_id;
  CR_RETURN_IF_ERROR(RemoveTree(path));  // An earlier attempt's leftovers.
  if (mkdir(path.c_str(), 0700) != 0) {
    return InternalError("create " + path + ": " + strerror(errno), "workspace_io");
  }
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  const auto id = static_cast<uid_t>(uid);
  if (!fd.valid() || fchown(fd.get(), id, id) != 0 || fchmod(fd.get(), 0700) != 0) {
    int err = errno;
    RemoveTree(path);
    return InternalError("prepare " + path + ": " + strerror(err), "workspace_io");
  }
  return path;
}

StatusOr<ArtifactSet> CollectArtifacts(const std::string& dir, const ArtifactCaps& caps) {
  TreeWalkOptions options;
  options.max_depth = caps.max_depth;
  options.max_entries = caps.max_files;
  options.remove_problems = true;
  CR_ASSIGN_OR_RETURN(TreeListing listing, ListTree(dir, options));
  ArtifactSet set;
  set.skipped = std::move(listing.problems);
  if (listing.truncated) {
    set.skipped.push_back({"", "too_many_files"});
  }
  // What is kept counts as the disk holds it: the directories' blocks, and
  // for each file the larger of its size (in whole blocks) and its
  // allocated bytes.
  int64_t used = listing.directory_bytes;
  for (const TreeFile& f : listing.files) {
    const int64_t charge = DiskCharge(f.size, f.allocated_bytes, true, listing.block_bytes);
    const char* reason = nullptr;
    if (charge > caps.max_file_bytes) {
      reason = "file_too_large";
    } else if (used + charge > caps.max_total_bytes) {
      reason = "total_too_large";
    }
    StatusOr<Sealed> sealed =
        reason ? StatusOr<Sealed>(InternalError("skipped")) : HashAndSeal(dir, f, caps.max_depth);
    if (!sealed.ok()) {
      set.skipped.push_back({f.path, reason ? reason : "unreadable"});
      CR_RETURN_IF_ERROR(RemoveTreeEntry(dir, f.path, caps.max_depth));
      continue;
    }
    used += charge;
    set.total_bytes += f.size;
    set.files.push_back({f.path, f.size, std::move(sealed->sha256), sealed->disk_bytes});
  }
  if (listing.truncated) {
    // Whatever the walk never reached is not listed, so it must not stay.
    TreeWalkOptions all;
    all.max_depth = caps.max_depth;
    all.max_entries = INT64_MAX;
    auto rest = ListTree(dir, all);
    if (rest.ok()) {
      size_t k = 0;
      for (const TreeFile& f : rest->files) {
        while (k < set.files.size() && set.files[k].path < f.path) ++k;
        if (k < set.files.size() && set.files[k].path == f.path) continue;
        CR_RETURN_IF_ERROR(RemoveTreeEntry(dir, f.path, caps.max_depth));
      }
    }
  }
  if (set.files.empty()) {
    CR_RETURN_IF_ERROR(RemoveTree(dir));
  } else {
    UniqueFd root(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (root.valid()) SealDirectories(root.get(), 0);
  }
  return set;
}

ArtifactCaps CapsAfterRun(const ArtifactCaps& caps, const Status& run_error) {
  ArtifactCaps after = caps;
  if (run_error.reason() == kReasonArtifactTooLarge && after.max_file_bytes > 0) {
    after.max_file_bytes -= 1;
  }
  return after;
}

bool BreaksOutputBounds(const TreeListing& listing, const ArtifactCaps& caps) {
  if (listing.truncated || listing.used_bytes > caps.max_total_bytes) return true;
  for (const TreeProblem& p : listing.problems) {
    if (p.reason == kProblemTooDeep || p.reason == kProblemUnreadable) return true;
  }
  for (const TreeFile& f : listing.files) {
    if (DiskCharge(f.size, f.allocated_bytes, true, listing.block_bytes) > caps.max_file_bytes) {
      return true;
    }
  }
  return false;
}

}  // namespace coderunner::isolation
