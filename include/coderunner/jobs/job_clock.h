// The wall clock the jobs' records are stamped with.
#ifndef CODERUNNER_JOBS_JOB_CLOCK_H_
#define CODERUNNER_JOBS_JOB_CLOCK_H_

#include <cstdint>

namespace coderunner::jobs {

// Milliseconds since the Unix epoch (system clock). Thread-safe.
int64_t NowMs();

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_CLOCK_H_
