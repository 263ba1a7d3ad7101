#include "sqlite_error.h"

#include <sqlite3.h>

#include <string>
#include <utility>

namespace coderunner::store {

Status SqliteError(sqlite3* db, int rc, std::string_view what) {
  const char* detail = (db != nullptr && sqlite3_errcode(db) == (rc & 0xff)) ? sqlite3_errmsg(db)
                                                                             : sqlite3_errstr(rc);
  std::string message = std::string(what) + ": " + detail + " (sqlite " + std::to_string(rc) + ")";
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return ResourceExhaustedError(std::move(message), kReasonDiskFull);
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_NOLFS:
      return UnavailableError(std::move(message), kReasonStoreUnavailable);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return InternalError(std::move(message), kReasonStoreCorrupt);
    default:
      return InternalError(std::move(message), kReasonStoreError);
  }
}

}  // namespace coderunner::store
