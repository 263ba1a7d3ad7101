// HostMount: the host directories that become a job's /output (artifacts.dir
// and volumes.dir) sit on nosuid,nodev mounts, so nothing a job leaves there
// is ever a working setuid program or device node, in the container or on
// the host.
//
// The engines cannot be asked for it per bind: Docker 20.10 refuses
// "nosuid"/"nodev" in Binds ("invalid mode"), its Mounts API has no such
// bind option, and its local volume driver drops them from o=bind (it only
// remounts a bind for "ro"). A bind mount does inherit the flags of the
// mount its source lies on, on both engines; so the service makes the
// directory itself such a mount, once, at startup, with no cost per job.
// coderunner-init checks the result inside every container (statvfs) and
// refuses to run a job whose /output is not nosuid,nodev.
#ifndef CODERUNNER_ISOLATION_HOST_MOUNT_H_
#define CODERUNNER_ISOLATION_HOST_MOUNT_H_

#include <string>

#include "coderunner/common/status.h"

namespace coderunner::isolation {

// OK if `dir` (an existing directory) lies on a mount that is nosuid and
// nodev. If it does not, bind-mounts `dir` onto itself and remounts that
// bind nosuid,nodev, keeping its other flags (ro, noexec, atime); the mount
// stays after the process ends (a later call finds it and does nothing).
// *mounted (optional) says whether this call made the mount. Fails with
// FailedPrecondition "output_mount_unsafe", naming the directory and the
// commands an operator can run, when that is not permitted (no
// CAP_SYS_ADMIN: e.g. the service in a container; mount the state
// directory nosuid,nodev on the host then). Call at startup, before jobs
// run; not thread-safe with other mounts at `dir`.
Status EnsureNosuidNodev(const std::string& dir, bool* mounted = nullptr);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_HOST_MOUNT_H_
