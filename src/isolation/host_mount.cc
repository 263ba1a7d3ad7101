#include "coderunner/isolation/host_mount.h"

#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>

namespace coderunner::isolation {
namespace {

constexpr unsigned long kWanted = ST_NOSUID | ST_NODEV;

// The per-mount flags to keep across the remount: a bind remount sets them
// all, so any not passed would be cleared.
unsigned long KeptFlags(unsigned long st_flags) {
  static constexpr std::pair<unsigned long, unsigned long> kMap[] = {
      {ST_RDONLY, MS_RDONLY},         {ST_NOEXEC, MS_NOEXEC},     {ST_NOATIME, MS_NOATIME},
      {ST_NODIRATIME, MS_NODIRATIME}, {ST_RELATIME, MS_RELATIME},
  };
  unsigned long out = 0;
  for (const auto& [st, ms] : kMap) {
    if (st_flags & st) out |= ms;
  }
  return out;
}

Status Refused(const std::string& dir, const std::string& why) {
  return FailedPreconditionError(
      dir + " is not on a nosuid,nodev mount and could not be made one (" + why +
          "); jobs would refuse to run. Make it one on the host: mount --bind " + dir + " " + dir +
          " && mount -o remount,bind,nosuid,nodev " + dir,
      "output_mount_unsafe");
}

}  // namespace

Status EnsureNosuidNodev(const std::string& dir, bool* mounted) {
  if (mounted != nullptr) *mounted = false;
  struct statvfs vfs;
  if (statvfs(dir.c_str(), &vfs) != 0) return Refused(dir, strerror(errno));
  if ((vfs.f_flag & kWanted) == kWanted) return OkStatus();
  if (mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    return Refused(dir, std::string("bind mount: ") + strerror(errno));
  }
  unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | KeptFlags(vfs.f_flag);
  if (mount(nullptr, dir.c_str(), nullptr, flags, nullptr) != 0) {
    int err = errno;
    (void)umount2(dir.c_str(), MNT_DETACH);
    return Refused(dir, std::string("remount nosuid,nodev: ") + strerror(err));
  }
  if (statvfs(dir.c_str(), &vfs) != 0 || (vfs.f_flag & kWanted) != kWanted) {
    (void)umount2(dir.c_str(), MNT_DETACH);
    return Refused(dir, "the remount did not take");
  }
  if (mounted != nullptr) *mounted = true;
  return OkStatus();
}

}  // namespace coderunner::isolation
