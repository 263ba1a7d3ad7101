// OutputSnapshot: what a persistent /output (a volume) held before a run,
// recorded by the service on the host as root, so that the service itself
// can undo a run that broke the volume's bounds.
//
// coderunner-init rolls back such a run too, from inside the container,
// but as the job's uid: a job that hides a directory from it or has it
// killed keeps what it wrote. The service takes its own snapshot before the
// container starts and measures the volume again once the container is
// gone; what init could not undo, this does.
#ifndef CODERUNNER_ISOLATION_OUTPUT_SNAPSHOT_H_
#define CODERUNNER_ISOLATION_OUTPUT_SNAPSHOT_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::isolation {

// The reason of a snapshot that could not be taken whole.
inline constexpr char kReasonOutputUnreadable[] = "output_unreadable";

class OutputSnapshot {
 public:
  // One entry: its identity (an inode number freed during the run can
  // come back as a new entry: the type and birth time tell them apart),
  // size and allocation.
  struct Entry {
    dev_t dev;
    ino_t ino;
    unsigned type;     // S_IFMT bits.
    int64_t birth_ns;  // statx btime; 0 where the file system keeps none.
    off_t size;
    blkcnt_t blocks;
  };

  // Records every entry below host directory `dir` by identity (device and
  // inode), with each one's size and allocation, never following a
  // symlink. FailedPrecondition "output_unreadable" if some part could not
  // be read or it holds more than `max_entries` entries (0: no bound).
  static StatusOr<OutputSnapshot> Take(const std::string& dir, int64_t max_entries);

  // Undoes a run below `dir`: removes every entry that is not in the
  // snapshot (a directory with everything below it) and cuts every regular
  // file that grew, in size or in allocated blocks, back to its size then
  // (which also frees blocks preallocated past its end). Call only once
  // nothing writes `dir` any more (its container is gone). Internal
  // "output_rollback" naming what could not be undone.
  Status RollBack(const std::string& dir) const;

  // Entries recorded.
  size_t size() const { return known_.size(); }

 private:
  // The recorded entry `now` still is, or null.
  const Entry* Lookup(const Entry& now) const;
  bool Undo(int dir_fd, int depth) const;

  std::vector<Entry> known_;  // Sorted by (dev, ino).
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_OUTPUT_SNAPSHOT_H_
