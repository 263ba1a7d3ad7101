// DiskRoom: whether the directories a node writes to have room for more.
#ifndef CODERUNNER_COMMON_DISK_ROOM_H_
#define CODERUNNER_COMMON_DISK_ROOM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner {

// The reason of every error a full disk causes (ENOSPC, EDQUOT,
// SQLITE_FULL), and of a refusal for want of room: HTTP 507.
inline constexpr char kReasonDiskFull[] = "disk_full";

// OK if the filesystem of each of `dirs` has at least `reserve_bytes` free
// for an unprivileged writer (statvfs f_bavail), and more than nothing.
// Else ResourceExhausted ("disk_full") naming the first directory short of
// room and what it has free. A directory that cannot be looked at counts
// as having room (the write that needs it will say why it fails).
Status CheckDiskRoom(const std::vector<std::string>& dirs, int64_t reserve_bytes);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_DISK_ROOM_H_
