// PgJobStore's RateBuckets::TakeToken: one statement of
// rate_bucket_queries.h.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "coderunner/store/postgres/pg_job_store.h"
#include "coderunner/store/rate_buckets.h"
#include "pg_connection.h"
#include "pg_pool.h"
#include "rate_bucket_queries.h"
#include "store_errors.h"

namespace coderunner::store {
namespace {

// ?3 of the statements: the time given, or "" for the database's clock.
std::string AtText(std::optional<int64_t> at_ms) {
  return at_ms.has_value() ? std::to_string(*at_ms) : std::string();
}

}  // namespace

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
