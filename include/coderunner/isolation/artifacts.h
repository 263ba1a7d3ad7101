// Artifacts: the files a job leaves in its per-job /output directory, taken
// over by the service after the job's container is gone.
#ifndef CODERUNNER_ISOLATION_ARTIFACTS_H_
#define CODERUNNER_ISOLATION_ARTIFACTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/artifact_caps.h"
#include "coderunner/isolation/safe_tree.h"

namespace coderunner::isolation {

using config::ArtifactCaps;  // Bounds on one job's artifacts (config/artifact_caps.h).

// The reason of a run stopped because one file in /output grew past
// max_file_bytes.
inline constexpr char kReasonArtifactTooLarge[] = "artifact_too_large";

struct Artifact {
  std::string path;  // Relative to /output.
  int64_t size = 0;
  std::string sha256;      // Lower-case hex.
  int64_t disk_bytes = 0;  // Allocated on disk (st_blocks * 512), as du counts.
};

struct ArtifactSet {
  std::vector<Artifact> files;       // Sorted by path.
  std::vector<TreeProblem> skipped;  // Not kept, with the reason; removed from disk.
  int64_t total_bytes = 0;           // Sum of files[].size.
};

// Creates the host directory <root>/<job_id> that becomes the job's /output:
// mode 0700, owned by `uid` (the container's uid, and gid of the same
// number) so only the job can write it; `root` is created 0700 if missing.
// A leftover from an earlier attempt of the same job is removed first.
// Returns its path.
StatusOr<std::string> CreateOutputDir(const std::string& root, const std::string& job_id,
                                      int64_t uid);

// Takes over `dir` after the job's container is gone: never follows a
// symlink, removes (and reports) symlinks, special files, hard links, bad
// names and everything beyond a cap (files are kept in path order while
// they fit, directories' blocks counted first), hashes what is kept, frees
// blocks preallocated past a kept file's end, and makes every kept entry
// root's alone (0600 files, 0700 directories: no other host user reads a
// tenant's files). Removes `dir` when nothing is kept. NotFound if `dir` is
// missing.
StatusOr<ArtifactSet> CollectArtifacts(const std::string& dir, const ArtifactCaps& caps);

// The caps to collect the /output of a run that ended with `run_error`
// with. A run stopped for a file past max_file_bytes may have been killed
// with that file at exactly the cap: the kernel counts the block it reserves
// for the next write before the file's size moves, so a guard can see the
// cap broken and kill the writer before the write lands. That file is cut
// short, not whole, so such a run keeps only files below the cap. Pure.
ArtifactCaps CapsAfterRun(const ArtifactCaps& caps, const Status& run_error);

// True when coderunner-init's output guard (src/init/output_guard.h) would
// stop a job over the tree `listing` describes (walked with max_entries =
// caps.max_files): every entry's charge together (listing.used_bytes,
// directories' blocks included) over max_total_bytes, one file's charge
// over max_file_bytes, more entries than max_files (a truncated walk), or
// a directory too deep or that could not be opened. A sandbox empties such
// a tree before it starts a new container on it, since init would stop
// that container at once. Pure.
bool BreaksOutputBounds(const TreeListing& listing, const ArtifactCaps& caps);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_ARTIFACTS_H_
