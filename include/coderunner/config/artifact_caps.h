// ArtifactCaps: the bounds on one job's artifacts (config keys artifacts.*,
// enforced by sandbox). Plain data.
#ifndef CODERUNNER_CONFIG_ARTIFACT_CAPS_H_
#define CODERUNNER_CONFIG_ARTIFACT_CAPS_H_

#include <cstdint>

namespace coderunner::config {

// Bounds on one job's artifacts. coderunner-init enforces them while the job
// runs (it stops the job); CollectArtifacts enforces them again afterwards,
// so a job killed between two of init's checks gains nothing. Bytes are
// counted as the disk holds them (isolation::DiskCharge, isolation/safe_tree.h): allocated
// blocks, a file at least its size, directories included.
struct ArtifactCaps {
  int64_t max_file_bytes = 10LL << 20;    // One file, bytes. 10 MiB.
  int64_t max_total_bytes = 100LL << 20;  // Everything together, bytes. 100 MiB.
  int max_files = 1000;                   // Entries (files and directories). 1000.
  int max_depth = 16;                     // Directory levels. 16.
};

}  // namespace coderunner::config

#endif  // CODERUNNER_CONFIG_ARTIFACT_CAPS_H_
