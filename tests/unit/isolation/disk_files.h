// Test helpers for disk accounting: files whose size and allocated blocks
// disagree, made by the test process itself (a job runs under the seccomp
// filter, which refuses fallocate).
#ifndef CODERUNNER_TESTS_UNIT_SANDBOX_DISK_FILES_H_
#define CODERUNNER_TESTS_UNIT_SANDBOX_DISK_FILES_H_

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace coderunner::testing {

// Opens (creating) `path`; makes its size `size` if that is > 0 (a sparse
// extension), then preallocates `preallocate` bytes from offset 0 past its
// end (fallocate KEEP_SIZE: the size stays) if that is > 0.
inline void MakeFile(const std::string& path, off_t size, off_t preallocate) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << path;
  if (size > 0) {
    EXPECT_EQ(ftruncate(fd, size), 0) << path;
  }
  if (preallocate > 0) {
    EXPECT_EQ(fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, preallocate), 0) << path;
  }
  close(fd);
}

// st_blocks * 512 of `path` (not following a symlink), as du counts; -1 if
// it cannot be stat'ed.
inline int64_t AllocatedBytes(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_blocks) * 512 : -1;
}

// Gives every directory below `dir` (and `dir`) mode 0700 back, so a tree
// whose modes a test took away can be removed. Never follows a symlink: a
// test tree may hold links to /usr or /etc, whose modes must not change.
inline void UnlockDirectories(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  (void)fchmod(fd, 0700);
  close(fd);
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_symlink(ec) || !it->is_directory(ec)) continue;
    int sub = open(it->path().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    (void)fchmod(sub, 0700);
    close(sub);
  }
}

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_UNIT_SANDBOX_DISK_FILES_H_
