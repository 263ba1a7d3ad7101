// Human-readable sizes ("256MB", "1.5GiB") and durations ("500ms", "30s",
// "2m", "1h") in config values. Private to src/config.
//
// A size is an integer number of bytes, or <number><unit> with unit B,
// K/KB/KiB, M/MB/MiB, G/GB/GiB or T/TB/TiB, case-insensitive, every one a
// BINARY multiple as Docker reads --memory (256MB = 268435456 bytes). A
// duration is an integer in the key's own unit, or <number><unit> with unit
// ms, s, m or h (case-insensitive). The number may have a fraction when the
// result is whole ("1.5GiB", "1.5s"). No sign, no space between number and
// unit ("12 MB" is refused: one spelling, as Docker's flags take it), no
// exponent. Pure functions; thread-safe.
#ifndef CODERUNNER_SRC_CONFIG_HUMAN_UNITS_H_
#define CODERUNNER_SRC_CONFIG_HUMAN_UNITS_H_

#include <cstdint>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::config {

// Bytes of `text`. InvalidArgument (message says why, without the key) if
// empty, negative, malformed, of an unknown unit, not whole bytes, or above
// INT64_MAX.
StatusOr<int64_t> ParseSize(std::string_view text);

// Milliseconds of `text`; a number without unit counts `plain_unit_ms`
// milliseconds each (1 for an _ms key, 1000 for an _s key). InvalidArgument
// as ParseSize, and for a result that is not whole milliseconds.
StatusOr<int64_t> ParseDurationMs(std::string_view text, int64_t plain_unit_ms);

}  // namespace coderunner::config

#endif  // CODERUNNER_SRC_CONFIG_HUMAN_UNITS_H_
