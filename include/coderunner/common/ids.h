// Random identifiers for jobs and other resources.
#ifndef CODERUNNER_COMMON_IDS_H_
#define CODERUNNER_COMMON_IDS_H_

#include <string>
#include <string_view>

namespace coderunner {

// Returns "<prefix>-" followed by 24 lower-case hex characters (96 random
// bits from the OS). Unguessable, so ids leak nothing. Thread-safe.
std::string NewId(std::string_view prefix);

// True when `id` has the form NewId(prefix) gives: "<prefix>-" followed by
// 24 lower-case hex characters. Pure; thread-safe.
bool IsId(std::string_view prefix, std::string_view id);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_IDS_H_
