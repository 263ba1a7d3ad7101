#include "coderunner/common/disk_room.h"

#include <sys/statvfs.h>

namespace coderunner {

Status CheckDiskRoom(const std::vector<std::string>& dirs, int64_t reserve_bytes) {
  for (const std::string& dir : dirs) {
    struct statvfs vfs;
    if (dir.empty() || statvfs(dir.c_str(), &vfs) != 0) continue;
    const int64_t free_bytes =
        static_cast<int64_t>(vfs.f_bavail) * static_cast<int64_t>(vfs.f_frsize);
    if (free_bytes > 0 && free_bytes >= reserve_bytes) continue;
    return ResourceExhaustedError(
        dir + " has " + std::to_string(free_bytes) + " bytes free, below the " +
            std::to_string(reserve_bytes) +
            " kept for the jobs already accepted (jobs.disk_reserve_bytes)",
        kReasonDiskFull);
  }
  return OkStatus();
}

}  // namespace coderunner
