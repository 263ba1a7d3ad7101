// How every JobStore backend's PurgeBeyond picks what to purge: a tenant's
// excess over its footprint bounds, and its oldest terminal jobs that take
// it away, read in batches by the backend. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_FOOTPRINT_RULES_H_
#define CODERUNNER_SRC_STORE_FOOTPRINT_RULES_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_store.h"

namespace coderunner::store {

// Terminal jobs read per round trip while walking a tenant's oldest ones.
inline constexpr int64_t kPurgeBatch = 256;

// A terminal job as kOldestFinishedSql reads it.
struct FinishedJob {
  std::string id;
  int64_t artifact_bytes = 0;
  int64_t output_bytes = 0;
  int64_t finished_at_ms = 0;
};

// How much of each sum must go for a tenant to fit its bounds; nothing
// when <= 0.
struct Excess {
  int64_t artifact_bytes = 0;
  int64_t output_bytes = 0;
  bool any() const { return artifact_bytes > 0 || output_bytes > 0; }
};

// The excess of `now` over `bounds` (0 or less: within that bound). Pure.
inline Excess ExcessOf(const Footprint& now, const FootprintBounds& bounds) {
  return {bounds.max_artifact_bytes > 0 ? now.artifact_bytes - bounds.max_artifact_bytes : 0,
          bounds.max_output_bytes > 0 ? now.output_bytes - bounds.max_output_bytes : 0};
}

// The ids of the oldest terminal jobs whose removal takes `excess` away,
// oldest first. `fetch(after_ms, after_id, limit)` reads the next `limit`
// jobs after that (finished_at_ms, id), oldest first, as a
// StatusOr<std::vector<FinishedJob>>.
template <typename Fetch>
StatusOr<std::vector<std::string>> OldestBeyond(Excess excess, Fetch fetch) {
  std::vector<std::string> ids;
  int64_t after_ms = std::numeric_limits<int64_t>::min();
  std::string after_id;
  while (excess.any()) {
    CR_ASSIGN_OR_RETURN(std::vector<FinishedJob> batch, fetch(after_ms, after_id, kPurgeBatch));
    for (const FinishedJob& job : batch) {
      if (!excess.any()) break;
      excess.artifact_bytes -= job.artifact_bytes;
      excess.output_bytes -= job.output_bytes;
      ids.push_back(job.id);
    }
    if (static_cast<int64_t>(batch.size()) < kPurgeBatch) break;  // No more jobs.
    after_ms = batch.back().finished_at_ms;
    after_id = batch.back().id;
  }
  return ids;
}

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_FOOTPRINT_RULES_H_
