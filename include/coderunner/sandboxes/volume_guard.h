// VolumeGuard: keeps a sandbox's persistent volume within its quota.
#ifndef CODERUNNER_SANDBOXES_VOLUME_GUARD_H_
#define CODERUNNER_SANDBOXES_VOLUME_GUARD_H_

#include <string>
#include <utility>

#include "coderunner/isolation/job_spec.h"
#include "coderunner/isolation/output_snapshot.h"

namespace coderunner::sandboxes {

// A sandbox mounts a volume at /output for its whole life. The service's
// watch stops the container when the volume breaks its quota, and
// coderunner-init checks the bound again when a replacement starts, but
// neither can roll back while a live REPL shares the directory. The guard
// records the volume (on the host, as root: isolation/output_snapshot.h) at
// the last settled point and undoes what was written since when the volume
// is over its quota. The volume's directory is the host side of the engine
// volume; it is not owned. Not thread-safe: the sandbox's call lock
// serialises use.
class VolumeGuard {
 public:
  VolumeGuard(std::string dir, isolation::VolumeMount volume)
      : dir_(std::move(dir)), volume_(std::move(volume)) {}

  // Records the volume as the state to return to. A volume that cannot be
  // recorded whole records nothing (everything in it then counts as new).
  // Once settled, a volume over its quota is never recorded: the last
  // call's own writes were rolled back before, so what breaks the quota now
  // is a process the call left behind, and the next rollback must remove
  // it (however soon after the call it wrote).
  void Settle();

  // If the volume breaks a bound (bytes counted as the disk holds them:
  // allocated blocks, a file at least its size, directories included; more
  // entries than allowed; a tree too deep or unreadable), or if `breached`
  // (the watch found it over: what the stopped writer left counts as past
  // the quota even if it fits now), removes every entry created since the
  // last Settle() and cuts every file that grew back to its size then, and
  // returns true. What cannot be undone is logged; the volume may then
  // still be over its quota.
  bool RollBackIfOver(bool breached);

 private:
  const std::string dir_;
  const isolation::VolumeMount volume_;
  isolation::OutputSnapshot settled_;
  bool settled_once_ = false;
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_VOLUME_GUARD_H_
