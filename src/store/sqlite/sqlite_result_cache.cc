#include "sqlite_result_cache.h"

#include "job_queries.h"

namespace coderunner::store {
StatusOr<std::optional<std::string>> SqliteResultCache::Get(const std::string& key,
                                                            int64_t now_ms) {
  CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kCacheGetSql));
  select.Bind(1, key);
  select.Bind(2, now_ms);
  CR_ASSIGN_OR_RETURN(bool found, select.Step("cache get"));
  if (!found) return std::optional<std::string>();
  return std::optional<std::string>(ColumnString(select.get(), 0));
}

Status SqliteResultCache::Put(const std::string& key, const std::string& result_json,
                              int64_t expires_at_ms) {
  CR_ASSIGN_OR_RETURN(ScopedStatement upsert, statements_->Prepare(kCachePutSql));
  upsert.Bind(1, key);
  upsert.BindBorrowed(2, result_json);
  upsert.Bind(3, expires_at_ms);
  return upsert.Run("cache put");
}

StatusOr<int> SqliteResultCache::PurgeExpired(int64_t now_ms) {
  CR_ASSIGN_OR_RETURN(ScopedStatement del, statements_->Prepare(kCachePurgeSql));
  del.Bind(1, now_ms);
  CR_RETURN_IF_ERROR(del.Run("cache purge"));
  return sqlite3_changes(db_);
}

}  // namespace coderunner::store
