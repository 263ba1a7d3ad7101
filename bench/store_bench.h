// service_bench's "store" section (issue 19): what the PostgreSQL job store
// adds to one job against SQLite, both measured in the same run.
#ifndef CODERUNNER_BENCH_STORE_BENCH_H_
#define CODERUNNER_BENCH_STORE_BENCH_H_

#include <httplib.h>

namespace bench {

// `jobs` interleaved rounds of python `print(1+1)` through POST /v1/execute
// (`"cache": false`, so that every job runs and is stored) on `sqlite` and on
// `postgres`: two services on the same engine with the warm pool on and
// identical config except store.kind. The order within a round alternates,
// and a few unmeasured warm-up runs on each come first (pool, connections).
// Prints p50 p90 p99 of each, the PostgreSQL - SQLite difference of the p50
// and the p90 in ms, their ratios, and one summary line against the issue's
// bound (PostgreSQL adds at most 3 ms at the p50).
void StoreLatency(httplib::Client& sqlite, httplib::Client& postgres, int jobs);

}  // namespace bench

#endif  // CODERUNNER_BENCH_STORE_BENCH_H_
