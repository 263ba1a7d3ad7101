#include "coderunner/common/disk_room.h"

#include <gtest/gtest.h>
#include <sys/statvfs.h>

#include <cstdint>
#include <string>
#include <vector>

namespace coderunner {
namespace {

int64_t FreeBytes(const std::string& dir) {
  struct statvfs vfs;
  EXPECT_EQ(statvfs(dir.c_str(), &vfs), 0);
  return static_cast<int64_t>(vfs.f_bavail) * static_cast<int64_t>(vfs.f_frsize);
}

TEST(DiskRoomTest, RefusesBelowTheReserveNamingTheDirectory) {
  const int64_t free_tmp = FreeBytes("/tmp");
  ASSERT_GT(free_tmp, 0);
  struct Case {
    const char* name;
    std::vector<std::string> dirs;
    int64_t reserve;
    std::string want_reason;  // "" = room.
  };
  const std::vector<Case> cases = {
      {"no reserve", {"/tmp"}, 0, ""},
      {"within what is free", {"/tmp"}, free_tmp / 2, ""},
      {"more than is free", {"/tmp"}, int64_t{1} << 62, kReasonDiskFull},
      {"the second directory short",
       {"/nonexistent-dir", "/tmp"},
       int64_t{1} << 62,
       kReasonDiskFull},
      {"a directory that cannot be looked at counts as room",
       {"/nonexistent-dir"},
       int64_t{1} << 62,
       ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = CheckDiskRoom(c.dirs, c.reserve);
    EXPECT_EQ(s.reason(), c.want_reason) << s.ToString();
    if (!c.want_reason.empty()) {
      EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
      EXPECT_EQ(s.message().rfind("/tmp has ", 0), 0u) << s.message();
    }
  }
}

}  // namespace
}  // namespace coderunner
