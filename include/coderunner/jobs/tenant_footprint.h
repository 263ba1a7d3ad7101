// TenantFootprint: what one tenant's finished jobs may keep on the host,
// bounded by its tier (tiers.<name>.max_retained_artifact_bytes and
// max_retained_output_bytes): retention by size, besides retention by age
// (jobs.retention_s, the janitor's).
#ifndef CODERUNNER_JOBS_TENANT_FOOTPRINT_H_
#define CODERUNNER_JOBS_TENANT_FOOTPRINT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/metrics.h"
#include "coderunner/config/config.h"
#include "coderunner/store/job_store.h"

namespace coderunner::jobs {

// What a TenantFootprint works with. Non-owning: every pointee outlives it
// and is thread-safe. None may be null.
struct TenantFootprintDeps {
  // The tenants' tiers (Config::TierOfTenant) and their max_retained_*
  // bounds; artifacts.dir, where the purged jobs' artifacts are removed.
  const config::Config* config = nullptr;
  store::JobStore* store = nullptr;  // Sums and purges the records (PurgeBeyond).
  // Counts each purged job in coderunner_footprint_purges_total{tier}
  // (DeclareJobMetrics'd).
  MetricsRegistry* metrics = nullptr;
};

// Keeps a tenant's finished jobs within its tier's bounds. Called after a
// job of the tenant reached a terminal state (and before its waiters are
// woken), it purges the tenant's oldest finished jobs, record and
// artifacts, exactly as the retention purge does, until both the retained
// artifact bytes and the stored output bytes fit (store::JobStore::
// PurgeBeyond, safe when several nodes of a fleet purge at once). A purged
// job answers 404 like an expired one; a queued or running job is never
// purged. In a fleet, the artifacts of a purged job that ran on another
// node are removed by that node's janitor (artifact directories of unknown
// jobs, every jobs.janitor_interval_s). Thread-safe.
class TenantFootprint {
 public:
  explicit TenantFootprint(TenantFootprintDeps deps) : deps_(deps) {}

  // Brings `tenant` within its tier's bounds; returns the ids purged,
  // oldest first. None for a tenant without a tier. A store failure is
  // logged and purges nothing: the tenant's next finished job tries again.
  std::vector<std::string> Enforce(const std::string& tenant) const;

 private:
  TenantFootprintDeps deps_;
};

// The bytes the kept artifacts of job `job_id` take on the host, as du
// counts them: every entry below `artifacts_dir`/`job_id`, its own
// directory included (st_blocks * 512, a file at least its size in
// blocks); 0 when it keeps none. Read after the job's artifacts were
// collected (nothing writes them any more). Thread-safe.
int64_t KeptArtifactBytes(const std::string& artifacts_dir, const std::string& job_id);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_TENANT_FOOTPRINT_H_
