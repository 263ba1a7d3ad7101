#include "coderunner/jobs/tenant_footprint.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "coderunner/isolation/safe_tree.h"
#include "coderunner/isolation/workspace.h"

namespace coderunner::jobs {

std::vector<std::string> TenantFootprint::Enforce(const std::string& tenant) const {
  const config::TierConfig* tier = deps_.config->TierOfTenant(tenant);
  if (tier == nullptr) return {};
  const store::FootprintBounds bounds{tier->max_retained_artifact_bytes,
                                      tier->max_retained_output_bytes};
  auto purged = deps_.store->PurgeBeyond(tenant, bounds);
  if (!purged.ok()) {
    spdlog::warn("tenant {}: cannot purge its oldest jobs to fit tier {}: {}", tenant, tier->name,
                 purged.status().ToString());
    return {};
  }
  for (const std::string& id : *purged) {
    // As the retention purge: the record first, then its files.
    (void)isolation::RemoveTree(deps_.config->artifacts.dir + "/" + id);
    deps_.metrics->Increment("coderunner_footprint_purges_total", {{"tier", tier->name}});
  }
  if (!purged->empty()) {
    spdlog::debug(
        "tenant {}: purged {} finished job(s), oldest first, to keep within tier {}'s "
        "{} artifact bytes and {} output bytes",
        tenant, purged->size(), tier->name, bounds.max_artifact_bytes, bounds.max_output_bytes);
  }
  return std::move(*purged);
}

int64_t KeptArtifactBytes(const std::string& artifacts_dir, const std::string& job_id) {
  const std::string dir = artifacts_dir + "/" + job_id;
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
  isolation::TreeWalkOptions all;
  all.max_entries = std::numeric_limits<int64_t>::max();
  auto listing = isolation::ListTree(dir, all);
  const int64_t below = listing.ok() ? listing->used_bytes : 0;
  return static_cast<int64_t>(st.st_blocks) * 512 + below;
}

}  // namespace coderunner::jobs
