// How the SQLite job store reports failures: SQLite result codes mapped to
// Status, and the reasons the store's errors carry. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_SQLITE_ERROR_H_
#define CODERUNNER_SRC_STORE_SQLITE_ERROR_H_

#include <string>
#include <string_view>

#include "coderunner/common/disk_room.h"  // kReasonDiskFull
#include "coderunner/common/status.h"
#include "coderunner/store/job_store.h"  // kReasonStoreUnavailable

struct sqlite3;

namespace coderunner::store {

// Reasons of the store's errors that are not part of job_store.h's contract.
inline constexpr const char* kReasonStoreCorrupt = "store_corrupt";
inline constexpr const char* kReasonStoreError = "store_error";

// Converts SQLite result code `rc`, returned by a call on `db` (may be null),
// into a Status whose message is "<what>: <detail> (sqlite <rc>)": a full
// disk is ResourceExhausted ("disk_full"); a file that cannot be opened,
// read, written or locked is Unavailable ("store_unavailable"); a corrupt
// file is Internal ("store_corrupt"); anything else Internal
// ("store_error"). Reads `db`'s last error: call it on the thread that made
// the failing call, before another call on `db`.
Status SqliteError(sqlite3* db, int rc, std::string_view what);

// Internal ("store_corrupt") with `message`: a stored row this code cannot
// read.
Status CorruptError(std::string message);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_ERROR_H_
