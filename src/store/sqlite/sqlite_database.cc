#include "sqlite_database.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include "sqlite_error.h"
#include "sqlite_schema.h"
#include "sqlite_statement.h"
#include "sqlite_transaction.h"

namespace coderunner::store {
namespace {

constexpr int kBusyTimeoutMs = 5000;

Status Configure(sqlite3* db) {
  sqlite3_extended_result_codes(db, 1);
  int rc = sqlite3_busy_timeout(db, kBusyTimeoutMs);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "busy_timeout");
  CR_ASSIGN_OR_RETURN(std::string mode, QueryOne(db, "PRAGMA journal_mode = WAL"));
  if (mode != "wal") {
    return UnavailableError("journal_mode=WAL not supported here (got '" + mode + "')",
                            kReasonStoreUnavailable);
  }
  CR_RETURN_IF_ERROR(Exec(db, "PRAGMA synchronous = FULL", "synchronous=FULL"));
  CR_RETURN_IF_ERROR(Exec(db, "PRAGMA foreign_keys = ON", "foreign_keys=ON"));
  // What a redaction or purge removes is overwritten, not left in free
  // space (see SqliteJobStore::Transition).
  CR_RETURN_IF_ERROR(Exec(db, "PRAGMA secure_delete = ON", "secure_delete=ON"));
  return OkStatus();
}

// Brings the schema to kSchemaVersion, one migration per transaction. The
// version is read under the write lock, so two processes opening a new file
// at once migrate it once.
Status Migrate(sqlite3* db) {
  while (true) {
    Transaction txn(db);
    CR_RETURN_IF_ERROR(txn.Begin());
    CR_ASSIGN_OR_RETURN(std::string text, QueryOne(db, "PRAGMA user_version"));
    int version = -1;
    std::from_chars(text.data(), text.data() + text.size(), version);
    if (version == kSchemaVersion) return txn.Commit();
    if (version < 0 || version > kSchemaVersion) {
      return FailedPreconditionError("database schema version " + text +
                                         " is not supported (this build knows up to " +
                                         std::to_string(kSchemaVersion) + ")",
                                     "schema_too_new");
    }
    CR_RETURN_IF_ERROR(Exec(db, kMigrations[version], "migrate schema"));
    // PRAGMA takes no bound parameters; the value is our own constant.
    std::string set_version = "PRAGMA user_version = " + std::to_string(version + 1);
    CR_RETURN_IF_ERROR(Exec(db, set_version.c_str(), "set schema version"));
    CR_RETURN_IF_ERROR(txn.Commit());
  }
}

// Creates `path` 0600 if it is missing, and makes it (and any -wal/-shm
// file an earlier process left) 0600 if it exists. Never follows a symlink.
Status MakePrivate(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::string file = path + suffix;
    int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (suffix[0] == '\0' ? O_CREAT : 0);
    int fd = open(file.c_str(), flags, 0600);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      return UnavailableError("open " + file + ": " + strerror(errno), kReasonStoreUnavailable);
    }
    int rc = fchmod(fd, 0600);
    int err = errno;
    close(fd);
    if (rc != 0) {
      return UnavailableError("chmod " + file + ": " + strerror(err), kReasonStoreUnavailable);
    }
  }
  return OkStatus();
}

// Creates the parent directories of `path`, if any.
Status CreateParent(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return OkStatus();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) {
    return UnavailableError(
        "open " + path + ": cannot create " + parent.string() + ": " + ec.message(),
        kReasonStoreUnavailable);
  }
  return OkStatus();
}

}  // namespace

StatusOr<SqliteHandle> OpenJobDatabase(const std::string& path) {
  if (path.empty()) return InvalidArgumentError("empty database path", "invalid_path");
  CR_RETURN_IF_ERROR(CreateParent(path));
  // The records hold every request (code, stdin, files) and its output:
  // root's alone. SQLite gives its -wal and -shm files the database's mode.
  CR_RETURN_IF_ERROR(MakePrivate(path));
  sqlite3* raw = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  SqliteHandle db(raw, sqlite3_close_v2);
  if (rc != SQLITE_OK) {
    return UnavailableError(
        "open " + path + ": " + (raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)),
        kReasonStoreUnavailable);
  }
  Status configured = Configure(db.get());
  if (configured.ok()) configured = Migrate(db.get());
  if (!configured.ok()) return configured.WithContext("open " + path);
  return db;
}

}  // namespace coderunner::store
