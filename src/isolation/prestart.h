// Prestart: the interpreter a pooled container starts before its job
// arrives (coderunner-init -P, src/init/prestart.h), and the modules it
// loads while it waits (the language's preload).
#ifndef CODERUNNER_SRC_ISOLATION_PRESTART_H_
#define CODERUNNER_SRC_ISOLATION_PRESTART_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/isolation/job_spec.h"

namespace coderunner::isolation {

// The smallest memory limit a preloading container gets: the built-in
// python's preload (numpy, pandas, matplotlib and pyplot) holds ~90 MiB
// resident in the image, which must leave a job most of its limit.
inline constexpr int64_t kPreloadMinMemoryBytes = 256LL << 20;

// Whether `job`'s pooled container should load its language's preload:
// its code names one of the modules' top-level package as a word (an
// import, or a mention: the cost of a false yes is memory, never a
// different program), its memory limit is at least kPreloadMinMemoryBytes,
// it asks for no Python packages (its layer comes first on its path), and
// none of its files would shadow a preloaded module (a top-level
// "<name>.py" or "<name>/": the job's own module must win, as it would
// cold). Pure; thread-safe.
bool WantsPreload(const JobSpec& job);

// The words coderunner-init prestarts for `job`'s pooled container: the
// language's prestart command ("{python_prestart}" and "{node_prestart}"
// expanded), plus its
// preload modules when job.preload. Empty: no prestart. Pure; thread-safe.
std::vector<std::string> PrestartWords(const JobSpec& job);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_SRC_ISOLATION_PRESTART_H_
