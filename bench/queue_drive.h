// queue_bench's drivers (issue 19, "queue ceiling"): seeding a JobStore
// with realistic queued jobs, the claim -> complete loop of one worker, its
// tally, and the figures of a run (cycles/s over the middle 80%, latencies).
#ifndef CODERUNNER_BENCH_QUEUE_DRIVE_H_
#define CODERUNNER_BENCH_QUEUE_DRIVE_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "coderunner/store/job_store.h"

namespace bench {

// What one worker (or, merged, one run) did. Times from steady_clock, which
// is CLOCK_MONOTONIC on Linux: comparable across the processes of a run.
struct Tally {
  std::vector<int64_t> done_ns;     // When each completing Transition returned OK.
  std::vector<double> claim_ms;     // Each Claim call, the last (empty) one included.
  std::vector<double> complete_ms;  // Each Transition call.
  int64_t failures = 0;             // Calls that did not return OK.
  std::string first_error;          // The first failure's message, if any.

  // Appends `other`'s figures to this one's.
  void Merge(const Tally& other);
  // Writes to / reads from `f` (binary, for a forked driver's results).
  bool Write(FILE* f) const;
  bool Read(FILE* f);
};

// `count` queued python print(1+1) jobs of 4 tenants, ids "job-<24 hex>"
// (`tag` in the first 8 hex digits), created at base_ms + i (so a claim
// takes them in this order), inserted in one transaction per 500.
// Returns "" or the first error.
std::string Seed(coderunner::store::JobStore& store, uint32_t tag, int count, int64_t base_ms);

// The ids Seed made for `tag` and `count`.
std::vector<std::string> SeededIds(uint32_t tag, int count);

// One worker: Claim(node, batch, now, 15 s) and then, for each job it got,
// Transition(id, succeeded, now, a small result, a digest, owner = node),
// until a Claim returns no job (the queue is empty) or 100 calls failed.
void Drive(coderunner::store::JobStore& store, const std::string& node, int batch, Tally& tally);

// The figures of one run.
struct Figures {
  int64_t completed = 0;
  double cycles_per_s = 0;  // Completed jobs per second over the middle 80% of completions.
  double claim_p50 = 0, claim_p99 = 0;        // ms.
  double complete_p50 = 0, complete_p99 = 0;  // ms.
};
Figures Summarize(const Tally& tally);

// Checks on `store` that every one of `ids` ended succeeded once: status
// succeeded, attempt 1, transitions exactly queued, running, succeeded, an
// owner. Returns "" or what is wrong (counts and the first bad id).
std::string CheckOnceEach(coderunner::store::JobStore& store, const std::vector<std::string>& ids);

}  // namespace bench

#endif  // CODERUNNER_BENCH_QUEUE_DRIVE_H_
