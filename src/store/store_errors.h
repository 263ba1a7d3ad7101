// The reasons of the job stores' own errors that are not part of
// job_store.h's contract, shared by every backend. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_STORE_ERRORS_H_
#define CODERUNNER_SRC_STORE_STORE_ERRORS_H_

#include <string>

#include "coderunner/common/status.h"

namespace coderunner::store {

// A stored row or file this code cannot read.
inline constexpr const char* kReasonStoreCorrupt = "store_corrupt";
// Any other failure of the database.
inline constexpr const char* kReasonStoreError = "store_error";

// Internal ("store_corrupt") with `message`: a stored row this code cannot
// read.
Status CorruptError(std::string message);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_STORE_ERRORS_H_
