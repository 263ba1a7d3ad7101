#include "install_process.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "coderunner/isolation/output_usage.h"

namespace coderunner::packages {
namespace {

// The most of an installer's own words an error message quotes.
constexpr size_t kMaxQuotedBytes = 600;

}  // namespace

std::string QuoteInstallerWords(std::string text) {
  if (text.size() > kMaxQuotedBytes) text = text.substr(0, kMaxQuotedBytes) + "...";
  return text;
}

int64_t TreeBytes(const std::string& dir) {
  // The walk that bounds a job's /output, unbounded here: it never follows
  // anything and counts each entry's charge.
  return isolation::MeasureOutput(dir, isolation::OutputLimits{}).used_bytes;
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
