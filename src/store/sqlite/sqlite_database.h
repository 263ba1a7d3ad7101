// Opening the job database file: private file modes, connection settings
// (WAL, synchronous=FULL, secure_delete) and schema migration. Internal to
// src/store.
#ifndef CODERUNNER_SRC_STORE_SQLITE_SQLITE_DATABASE_H_
#define CODERUNNER_SRC_STORE_SQLITE_SQLITE_DATABASE_H_

#include <sqlite3.h>

#include <memory>
#include <string>

#include "coderunner/common/status.h"

namespace coderunner::store {

// An open connection; closing it (sqlite3_close_v2) when destroyed.
using SqliteHandle = std::unique_ptr<sqlite3, int (*)(sqlite3*)>;

// Opens (creating if needed) the database at `path`, creating its parent
// directories, and makes the file and any -wal/-shm file 0600 (never
// following a symlink). Configures the connection: extended result codes,
// a 5 s busy timeout, journal_mode=WAL, synchronous=FULL, foreign_keys and
// secure_delete on. Then migrates the schema to kSchemaVersion
// (sqlite_schema.h), one migration per transaction.
// Failures: empty path InvalidArgument ("invalid_path"); a directory or
// file that cannot be created, opened or made private, or no WAL support,
// Unavailable ("store_unavailable"); a schema newer than this build
// FailedPrecondition ("schema_too_new"); SQLite errors as SqliteError. The
// messages of configuration and migration failures start "open <path>: ".
// The caller owns the connection. Thread-safe (each call opens its own).
StatusOr<SqliteHandle> OpenJobDatabase(const std::string& path);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_SQLITE_DATABASE_H_
