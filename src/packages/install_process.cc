#include "install_process.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "coderunner/isolation/output_usage.h"
#include "coderunner/packages/package_installer.h"

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

Status WriteNewFile(const std::string& path, std::string_view text, int64_t uid) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (ok && uid >= 0) ok = fchown(fd, static_cast<uid_t>(uid), static_cast<gid_t>(uid)) == 0;
  if (fd >= 0) close(fd);
  return ok ? OkStatus() : InternalError("cannot write " + path, kReasonInstallFailed);
}

}  // namespace coderunner::packages
