// How the SQLite job store reports failures: SQLite result codes mapped to
// Status (with the reasons of store_errors.h). Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_SQLITE_SQLITE_ERROR_H_
#define CODERUNNER_SRC_STORE_SQLITE_SQLITE_ERROR_H_

#include <string>
#include <string_view>

#include "coderunner/common/disk_room.h"  // kReasonDiskFull
#include "coderunner/common/status.h"
#include "coderunner/store/job_store.h"  // kReasonStoreUnavailable
#include "store_errors.h"

struct sqlite3;

namespace coderunner::store {

// Converts SQLite result code `rc`, returned by a call on `db` (may be null),
// into a Status whose message is "<what>: <detail> (sqlite <rc>)": a full
// disk is ResourceExhausted ("disk_full"); a file that cannot be opened,
// read, written or locked is Unavailable ("store_unavailable"); a corrupt
// file is Internal ("store_corrupt"); anything else Internal
// ("store_error"). Reads `db`'s last error: call it on the thread that made
// the failing call, before another call on `db`.
Status SqliteError(sqlite3* db, int rc, std::string_view what);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_SQLITE_ERROR_H_
