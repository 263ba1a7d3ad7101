// VolumeGuard: keeps a sandbox's persistent volume within its quota.
#ifndef CODERUNNER_SANDBOXES_VOLUME_GUARD_H_
#define CODERUNNER_SANDBOXES_VOLUME_GUARD_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "coderunner/isolation/job_spec.h"

namespace coderunner::sandboxes {

// A sandbox mounts a volume at /output for its whole life. coderunner-init
// stops the container when the volume breaks its quota, but cannot roll back
// (a live REPL shares the directory), and it checks the bound again when a
// replacement starts. The guard remembers the volume as of the last settled
// point and removes what was written since, when the volume is over its
// quota. The volume's directory is the host side of the engine volume; it
// is not owned. Not thread-safe: the sandbox's call lock serialises use.
class VolumeGuard {
 public:
  VolumeGuard(std::string dir, isolation::VolumeMount volume)
      : dir_(std::move(dir)), volume_(std::move(volume)) {}

  // Records the volume's files (path, size, mtime, allocated bytes) as the
  // state to return to. An unreadable directory records nothing (every file
  // then counts as new).
  void Settle();

  // If the volume holds more than its quota (bytes counted as the disk
  // holds them: allocated blocks, a file at least its size, directories
  // included; or more files than allowed), removes every file created or
  // changed (size, mtime or allocation) and every directory created since
  // the last Settle() (files that were there then and unchanged stay) and
  // returns true. Removal failures
  // are ignored: the file stays and the volume may still be over its quota.
  bool RollBackIfOver();

 private:
  struct FileState {
    int64_t size = 0;
    int64_t modified_ms = 0;
    int64_t allocated_bytes = 0;
    bool operator==(const FileState&) const = default;
  };
  struct Snapshot {
    std::map<std::string, FileState> files;
    std::set<std::string> directories;
    int64_t used_bytes = 0;  // DiskCharge of everything in the volume.
    int64_t entries = 0;     // Files, directories and the rest: what init's -n bounds.
  };
  Snapshot Take() const;
  bool Over(const Snapshot& now) const;

  const std::string dir_;
  const isolation::VolumeMount volume_;
  Snapshot settled_;
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_VOLUME_GUARD_H_
