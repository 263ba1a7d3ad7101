// The metric families the jobs module writes.
#ifndef CODERUNNER_JOBS_JOB_METRICS_H_
#define CODERUNNER_JOBS_JOB_METRICS_H_

#include "coderunner/common/metrics.h"

namespace coderunner::jobs {

// Declares every metric family the jobs module writes in `metrics`. Call
// once per registry, before any job runs; not thread-safe against writers.
void DeclareJobMetrics(MetricsRegistry& metrics);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_METRICS_H_
