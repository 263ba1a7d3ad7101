// TokenAnswerOf and both job stores' RateBuckets::TakeToken: one statement
// of rate_bucket_queries.h each.
#include "coderunner/store/rate_buckets.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <string>

#include "coderunner/store/pg_job_store.h"
#include "coderunner/store/sqlite_job_store.h"
#include "pg_connection.h"
#include "pg_pool.h"
#include "rate_bucket_queries.h"
#include "sqlite_error.h"
#include "sqlite_statement.h"

namespace coderunner::store {
namespace {

// ?3 of the statements: the time given, or "" for the database's clock.
std::string AtText(std::optional<int64_t> at_ms) {
  return at_ms.has_value() ? std::to_string(*at_ms) : std::string();
}

}  // namespace

TokenAnswer TokenAnswerOf(bool allowed, double tokens_left, int per_minute) {
  if (allowed) return TokenAnswer{true, 0};
  double per_second = std::max(1, per_minute) / 60.0;
  double deficit = std::max(0.0, 1.0 - tokens_left);
  return TokenAnswer{false, std::max(1, static_cast<int>(std::ceil(deficit / per_second)))};
}

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

StatusOr<TokenAnswer> PgJobStore::TakeToken(const std::string& tenant, int per_minute,
                                            std::optional<int64_t> at_ms) {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  PgParams params;
  params.Bind(1, tenant);
  params.Bind(2, static_cast<int64_t>(std::max(1, per_minute)));
  params.Bind(3, AtText(at_ms));
  CR_ASSIGN_OR_RETURN(PgResult result,
                      conn->Exec(kPgTakeTokenSql, params, "take a token of " + tenant));
  if (result.rows() != 1) {
    return InternalError("take a token of " + tenant + ": no row", kReasonStoreError);
  }
  bool allowed = result.Int(0, kBucketAllowed) != 0;
  double tokens = std::strtod(result.Text(0, kBucketTokens).c_str(), nullptr);
  return TokenAnswerOf(allowed, tokens, per_minute);
}

}  // namespace coderunner::store
