// SqliteResultCache: the result cache table of the job database (results
// keyed by cache key, until they expire). Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_SQLITE_SQLITE_RESULT_CACHE_H_
#define CODERUNNER_SRC_STORE_SQLITE_SQLITE_RESULT_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "coderunner/common/status.h"
#include "sqlite_statement.h"

namespace coderunner::store {

// The cache half of SqliteJobStore (see JobStore::CacheGet and after).
// Borrows the store's connection and statements, which must outlive it.
// Not thread-safe: the store calls it under its mutex. Failures are
// SqliteError's. Times are milliseconds since the epoch.
class SqliteResultCache {
 public:
  SqliteResultCache(sqlite3* db, SqliteStatementCache* statements)
      : db_(db), statements_(statements) {}

  // The result JSON under `key` if it expires after `now_ms`, else nullopt.
  StatusOr<std::optional<std::string>> Get(const std::string& key, int64_t now_ms);
  // Stores (or replaces) `result_json` under `key` until `expires_at_ms`.
  Status Put(const std::string& key, const std::string& result_json, int64_t expires_at_ms);
  // Deletes the entries expired at `now_ms`; returns how many.
  StatusOr<int> PurgeExpired(int64_t now_ms);

 private:
  sqlite3* db_;
  SqliteStatementCache* statements_;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_SQLITE_RESULT_CACHE_H_
