// The cursor of a job list page: "<created_at_ms>_<id>" of the last row of
// the previous page. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_LIST_CURSOR_H_
#define CODERUNNER_SRC_STORE_LIST_CURSOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "coderunner/store/job_record.h"

namespace coderunner::store {

struct ListCursor {
  int64_t created_at_ms = 0;  // Milliseconds since the epoch; may be negative.
  std::string id;             // Printable ASCII, no space.
};

// The cursor that resumes a list after `job`.
std::string FormatListCursor(const store::JobRecord& job);

// Parses a cursor of FormatListCursor; nullopt if `text` is not one
// (empty parts, a non-decimal time, an id with a space or non-ASCII).
std::optional<ListCursor> ParseListCursor(std::string_view text);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_LIST_CURSOR_H_
