// The metrics trailer coderunner-init writes as the last line of stderr.
#ifndef CODERUNNER_SANDBOX_INIT_TRAILER_H_
#define CODERUNNER_SANDBOX_INIT_TRAILER_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace coderunner::sandbox {

struct InitTrailer {
  int exit_code = 0;
  int signal = 0;
  int64_t wall_us = 0;
  int64_t cpu_us = -1;             // -1 when unknown.
  int64_t memory_peak_bytes = -1;  // -1 when unknown.
  int64_t oom_kills = -1;          // -1 when the cgroup did not say.
  size_t length = 0;               // Bytes the trailer occupies at the end of stderr.
};

// Finds a trailer that ends exactly at the end of `stderr_tail`. Returns
// nullopt if there is none (the init was killed, or never ran). Pure.
std::optional<InitTrailer> ParseInitTrailer(std::string_view stderr_tail);

}  // namespace coderunner::sandbox

#endif  // CODERUNNER_SANDBOX_INIT_TRAILER_H_
