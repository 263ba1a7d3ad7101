// SqliteJobStore's RateBuckets::TakeToken: one statement of
// rate_bucket_queries.h.
#include <sqlite3.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>

#include "coderunner/store/rate_buckets.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "rate_bucket_queries.h"
#include "sqlite_statement.h"
#include "store_errors.h"

namespace coderunner::store {
namespace {

// ?3 of the statements: the time given, or "" for the database's clock.
std::string AtText(std::optional<int64_t> at_ms) {
  return at_ms.has_value() ? std::to_string(*at_ms) : std::string();
}

}  // namespace

StatusOr<TokenAnswer> SqliteJobStore::TakeToken(const std::string& tenant, int per_minute,
                                                std::optional<int64_t> at_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement take, statements_->Prepare(kSqliteTakeTokenSql));
  take.Bind(1, tenant);
  take.Bind(2, static_cast<int64_t>(std::max(1, per_minute)));
  take.Bind(3, AtText(at_ms));
  CR_ASSIGN_OR_RETURN(bool row, take.Step("take a token of " + tenant));
  if (!row) return InternalError("take a token of " + tenant + ": no row", kReasonStoreError);
  bool allowed = sqlite3_column_int64(take.get(), kBucketAllowed) != 0;
  double tokens = sqlite3_column_double(take.get(), kBucketTokens);
  return TokenAnswerOf(allowed, tokens, per_minute);
}

}  // namespace coderunner::store
