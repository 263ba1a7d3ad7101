// service_bench's "data" section (issue 17): what the data-science Python
// image and TypeScript cost per job through the warm pool.
#ifndef CODERUNNER_BENCH_DATA_BENCH_H_
#define CODERUNNER_BENCH_DATA_BENCH_H_

#include <httplib.h>

#include <string>

namespace bench {

// `jobs` sequential runs, through `service` (the data image), of:
// python print(1+1); python `import pandas, numpy, matplotlib`; a
// TypeScript hello; and, through `slim` (the same service config but
// languages.python.image: coderunner/python:3.11-slim) when not null,
// python print(1+1) interleaved with the data-image runs. Prints p50 p95
// p99 of each and the data/slim print(1+1) p50 ratio (issue 17 allows at
// most 1.10x), the import's p50 against issue 38's bounds (60 ms, 2x
// print(1+1)), and, given the engine's `socket`, what the service's idle
// warm pool holds in memory.
void DataLatency(httplib::Client& service, httplib::Client* slim, int jobs,
                 const std::string& socket = "");

}  // namespace bench

#endif  // CODERUNNER_BENCH_DATA_BENCH_H_
