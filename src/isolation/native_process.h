// One native job's host process: how it is started (fork, then only
// async-signal-safe calls until exec) and how it and everything it started
// are killed. Private to src/isolation (NativeRunner).
#ifndef CODERUNNER_SRC_ISOLATION_NATIVE_PROCESS_H_
#define CODERUNNER_SRC_ISOLATION_NATIVE_PROCESS_H_

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::isolation {

// One rlimit, soft and hard.
struct NativeRlimit {
  int resource;
  rlim_t soft;
  rlim_t hard;
};

// Everything the child needs, prepared before the fork.
struct NativeLaunch {
  std::string program;            // Absolute path of the executable.
  std::vector<std::string> argv;  // argv[0] included.
  std::vector<std::string> env;   // The whole environment, "NAME=value".
  std::string cwd;                // The job's directory.
  int stdin_fd = -1;              // Becomes fd 0; owned by the caller.
  bool switch_user = false;       // setgroups(0), setresgid, setresuid to uid.
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<NativeRlimit> rlimits;
};

// A started process: its pid (also its process group and session id), a
// pidfd that polls readable once it exited (unreaped), and the read ends of
// its stdout and stderr pipes. The caller owns the descriptors.
struct NativeChild {
  pid_t pid = -1;
  int pidfd = -1;
  int out_fd = -1;
  int err_fd = -1;
};

// Forks and execs `launch`. Every descriptor but 0, 1, 2 is closed in the
// child. Errors (kReasonNativeSpawnFailed): pipes or fork failed, or the
// child could not be set up or exec'd (the message names the errno and
// step); nothing is left running then.
StatusOr<NativeChild> SpawnNative(const NativeLaunch& launch);

// SIGKILLs process group `pgid`, and, when `uid` >= 0, every process of
// `uid` (from a short-lived child that takes that uid: needs root). Call
// before the group leader is reaped, so its pid cannot have been reused.
void KillNative(pid_t pgid, int64_t uid);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_SRC_ISOLATION_NATIVE_PROCESS_H_
