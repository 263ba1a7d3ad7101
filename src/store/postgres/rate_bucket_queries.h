// PgJobStore's rate buckets statement (RateBuckets::TakeToken): one upsert
// that refills the tenant's bucket by the time passed since its
// last refill, takes a token if one is there, and returns (allowed,
// tokens left). ?1 tenant, ?2 capacity (max(1, per_minute)), ?3 the time
// in ms as text, or "" for the database's clock. A new bucket starts full
// (capacity - 1 after this request); excluded.tokens + 1 is the capacity
// and excluded.refilled_at_ms the time of this call. Internal to
// src/store/postgres.
#ifndef CODERUNNER_SRC_STORE_POSTGRES_RATE_BUCKET_QUERIES_H_
#define CODERUNNER_SRC_STORE_POSTGRES_RATE_BUCKET_QUERIES_H_

namespace coderunner::store {

// Columns of the statement's RETURNING.
enum RateBucketColumn { kBucketAllowed = 0, kBucketTokens };

// PostgreSQL: clock_timestamp() is the server's wall clock.
#define CR_PG_REFILLED                                                           \
  "LEAST(excluded.tokens + 1, b.tokens + GREATEST(0, excluded.refilled_at_ms - " \
  "b.refilled_at_ms) * (excluded.tokens + 1) / 60000)"
inline constexpr const char* kPgTakeTokenSql =
    "INSERT INTO rate_buckets AS b (tenant, tokens, refilled_at_ms, allowed) VALUES (?1, "
    "CAST(?2 AS DOUBLE PRECISION) - 1, COALESCE(CAST(NULLIF(?3, '') AS BIGINT), "
    "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)), 1) "
    "ON CONFLICT (tenant) DO UPDATE SET "
    "allowed = CASE WHEN " CR_PG_REFILLED
    " >= 1 THEN 1 ELSE 0 END, "
    "tokens = CASE WHEN " CR_PG_REFILLED " >= 1 THEN " CR_PG_REFILLED " - 1 ELSE " CR_PG_REFILLED
    " END, refilled_at_ms = GREATEST(b.refilled_at_ms, excluded.refilled_at_ms) "
    "RETURNING allowed, tokens";
#undef CR_PG_REFILLED

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_POSTGRES_RATE_BUCKET_QUERIES_H_
