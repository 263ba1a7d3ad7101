#include "install_process.h"

#include <fcntl.h>
#include <fts.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace coderunner::packages {

int64_t TreeBytes(const std::string& dir) {
  char* paths[] = {const_cast<char*>(dir.c_str()), nullptr};
  FTS* fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR | FTS_XDEV, nullptr);
  if (fts == nullptr) return 0;
  int64_t total = 0;
  while (FTSENT* e = fts_read(fts)) {
    if (e->fts_info == FTS_DP || e->fts_statp == nullptr) continue;
    const struct stat& st = *e->fts_statp;
    total += std::max<int64_t>(st.st_blocks * 512, S_ISREG(st.st_mode) ? st.st_size : 0);
  }
  fts_close(fts);
  return total;
}

std::string ReadTail(const std::string& path, int64_t max_bytes) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st;
  std::string out;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const int64_t from = std::max<int64_t>(0, st.st_size - max_bytes);
    out.resize(static_cast<size_t>(std::min<int64_t>(st.st_size, max_bytes)));
    ssize_t n = pread(fd, out.data(), out.size(), from);
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  }
  close(fd);
  return out;
}

}  // namespace coderunner::packages
