// The bounds of the local queue that an accepted job meets, and the 429s
// every dispatch answers with, each counted in
// coderunner_jobs_rejected_total{reason}.
#ifndef CODERUNNER_JOBS_QUEUE_ADMISSION_H_
#define CODERUNNER_JOBS_QUEUE_ADMISSION_H_

#include <cstddef>
#include <string>

#include "coderunner/common/metrics.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/jobs/job_queue.h"
#include "coderunner/store/job_store.h"

namespace coderunner::jobs {

// 429 tier_queue_full, naming `tier` and its max_queued.
Status TierQueueFull(MetricsRegistry& metrics, const config::TierConfig& tier);
// 429 queue_full, naming the `capacity` of the queue.
Status QueueFull(MetricsRegistry& metrics, size_t capacity);

// The tier's max_queued of `tenant` (nullable `tier`), with `batch_hits`
// counted as queued, then room in `queue`: on success one slot of `queue`
// is reserved (the caller pushes or releases it). Thread-safe.
Status ReserveQueueSlot(JobQueue& queue, MetricsRegistry& metrics, const std::string& tenant,
                        const config::TierConfig* tier, size_t batch_hits);

// Inserts `rec` into `store` after ReserveQueueSlot; if the insert fails, a
// queued job's slot goes back to `queue` (a terminal one, a cache hit, gave
// its slot back before). The store's errors. Thread-safe.
Status InsertReserved(store::JobStore& store, JobQueue& queue, const store::JobRecord& rec);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_QUEUE_ADMISSION_H_
