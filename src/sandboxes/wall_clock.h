// NowMs: the wall clock as sandbox records keep it (created_at_ms,
// last_used_at_ms, ...).
#ifndef CODERUNNER_SANDBOXES_WALL_CLOCK_H_
#define CODERUNNER_SANDBOXES_WALL_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace coderunner::sandboxes {

// Milliseconds since the Unix epoch.
inline int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_WALL_CLOCK_H_
