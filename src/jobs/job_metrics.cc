#include "job_metrics.h"

#include <vector>

namespace coderunner::jobs {

void DeclareJobMetrics(MetricsRegistry& m) {
  const std::vector<double> seconds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                       1,     2.5,  5,     10,   30,  60,   300};
  m.DeclareCounter("coderunner_jobs_total", "Jobs finished, by status and language.");
  m.DeclareGauge("coderunner_queue_depth", "Jobs waiting for a worker.");
  m.DeclareGauge("coderunner_jobs_running", "Jobs running now.");
  m.DeclareHistogram("coderunner_job_queue_seconds", "Time from acceptance to start.", seconds);
  m.DeclareHistogram("coderunner_job_run_seconds", "Time from start to finish.", seconds);
  m.DeclareHistogram("coderunner_job_total_seconds", "Time from acceptance to finish.", seconds);
  m.DeclareCounter("coderunner_engine_errors_total", "Engine failures seen by jobs, by kind.");
  m.DeclareCounter("coderunner_cache_hits_total", "Jobs answered from the result cache.");
  m.DeclareCounter("coderunner_cache_misses_total", "Cacheable jobs not found in the cache.");
  m.DeclareCounter("coderunner_jobs_rejected_total", "Submissions refused, by reason.");
  m.DeclareCounter("coderunner_result_store_retries_total",
                   "Times a job's result was offered to the store again because it could not "
                   "take it (a full disk, a store that is down), by reason.");
  m.DeclareCounter("coderunner_footprint_purges_total",
                   "Finished jobs purged (record and artifacts) before jobs.retention_s because "
                   "their tenant's retained artifact or stored output bytes passed its tier's "
                   "bound, by tier.");
}

}  // namespace coderunner::jobs
