// RateBuckets: the tiers' requests_per_minute token buckets kept in the job
// database (table rate_buckets), so that every node of a fleet takes from
// the same bucket of a tenant. The fleet's store implements it (PgJobStore:
// StoreParts::rate_buckets; a single node keeps its own buckets in memory);
// store::SharedRateLimiter (shared_rate_limiter.h) puts it behind
// auth::RateLimiter.
#ifndef CODERUNNER_STORE_RATE_BUCKETS_H_
#define CODERUNNER_STORE_RATE_BUCKETS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "coderunner/common/status.h"

namespace coderunner::store {

// What TakeToken decided. Plain data.
struct TokenAnswer {
  bool allowed = false;
  // When refused: seconds until one token is back (>= 1). 0 when allowed.
  int retry_after_s = 0;
};

class RateBuckets {
 public:
  virtual ~RateBuckets() = default;

  // Takes one token from `tenant`'s bucket if it holds one, in one atomic
  // statement. The bucket holds max(1, per_minute) tokens and refills at
  // that many per minute, continuously; a tenant seen for the first time
  // starts full. Time is the DATABASE's clock (ms since the epoch) so that
  // nodes' clock skews do not matter, unless `at_ms` is given (tests); a
  // time before the bucket's last refill counts as no time passed.
  // Concurrent calls from any number of handles and nodes on one database
  // take each token at most once. Failure: a server store that cannot be
  // reached is Unavailable ("store_unavailable"); other database errors as
  // the store's. Thread-safe.
  virtual StatusOr<TokenAnswer> TakeToken(const std::string& tenant, int per_minute,
                                          std::optional<int64_t> at_ms) = 0;
};

// The answer for a bucket of `per_minute` that is left with `tokens_left`
// after the statement (`allowed`: it took one): retry_after_s is the
// seconds the deficit (1 - tokens_left) takes to refill, at least 1. Pure.
TokenAnswer TokenAnswerOf(bool allowed, double tokens_left, int per_minute);

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_RATE_BUCKETS_H_
