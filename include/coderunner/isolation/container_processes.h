// ContainerProcesses: a live container's processes as the service sees
// them on the host, found through /proc alone: no engine round trip, so
// the /output guard (output_watch.h) finds and kills them as fast when the
// engine is slow or gone.
//
// A process is a container's when its /proc/<pid>/cgroup names the
// container's id: Docker ("/docker/<id>", "docker-<id>.scope"), Podman
// ("libpod-<id>.scope") and runsc all name the cgroup after it, and a job
// cannot move itself out (cgroupfs is read-only in the container and the
// job has no capability). Under runc the container's processes share a PID
// namespace of their own; under gVisor the sandbox and its gofer live in
// the host's, and hold on the host every file their guest processes have
// open. The service must see the host's /proc (its own PID namespace is
// the host's: compose says `pid: host`) with CAP_SYS_PTRACE to look at
// another uid's descriptors.
#ifndef CODERUNNER_ISOLATION_CONTAINER_PROCESSES_H_
#define CODERUNNER_ISOLATION_CONTAINER_PROCESSES_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/isolation/output_usage.h"

namespace coderunner::isolation {

// One host process, as long as it is the one that started at
// `start_ticks` (field 22 of /proc/<pid>/stat): a pid used again is never
// taken for it.
struct HostProcess {
  int64_t pid = 0;
  uint64_t start_ticks = 0;
};

struct ContainerProcesses {
  std::string container_id;
  // Under runc: the container's PID namespace (the inode of
  // /proc/<pid>/ns/pid); every process in it is the container's. 0: none.
  ino_t pid_namespace = 0;
  // The container's processes in the service's own PID namespace (gVisor's
  // sandbox and gofer).
  std::vector<HostProcess> in_host_namespace;
};

// The processes of container `container_id` (the engine's full id) running
// now; nullopt when none is seen (the container has not started or has
// ended, or the service cannot see the host's processes). One pass over
// /proc. Thread-safe.
std::optional<ContainerProcesses> FindContainerProcesses(const std::string& container_id);

// Sends SIGKILL to every process of container `container_id` seen now (one
// pass over /proc, as FindContainerProcesses); returns how many. Under
// runc the kernel then ends its whole PID namespace; under gVisor the
// sandbox ends. Thread-safe.
int KillContainerProcesses(const std::string& container_id);

// Sends SIGKILL to the processes as recorded in `processes` that its
// container's cgroup still names (those of its PID namespace; its host
// ones with their recorded start time); returns how many. Reads the cgroup
// of those processes only: under container churn every read of a
// /proc/<pid>/cgroup can wait on the kernel's cgroup lock, so a pass over
// all of them (KillContainerProcesses) may take a hundred milliseconds.
// Thread-safe.
int KillProcesses(const ContainerProcesses& processes);

// Which processes and which file system one OpenOrphans answer is about.
struct OrphanQuery {
  ContainerProcesses processes;
  dev_t device = 0;  // The file system of its /output (OutputUsage::device).
  int64_t block_bytes = 512;
};

// For each query, the regular files on its device that its processes hold
// open, or map shared, after every name of theirs was removed (st_nlink 0),
// each counted once (a mapped one at what its mappings reach), in at most
// one pass over /proc. Only processes in the container's
// cgroup count: the kernel gives a PID namespace's inode number, and a
// process's pid, to another container's once the first is gone. Thread-safe.
std::vector<OrphanUsage> OpenOrphans(const std::vector<OrphanQuery>& queries);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_CONTAINER_PROCESSES_H_
