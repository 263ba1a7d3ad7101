// The wall clock in milliseconds since the Unix epoch: what records,
// heartbeats and expiry times store. Durations use a steady clock instead.
#ifndef CODERUNNER_COMMON_WALL_CLOCK_H_
#define CODERUNNER_COMMON_WALL_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace coderunner {

inline int64_t WallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_WALL_CLOCK_H_
