// The webhook outbox's SQL (WebhookOutbox), the same text for SQLite and
// PostgreSQL (?N placeholders; PgConnection turns them into $N), its
// argument checks and its row reader. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_OUTBOX_QUERIES_H_
#define CODERUNNER_SRC_STORE_OUTBOX_QUERIES_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/webhook_outbox.h"

namespace coderunner::store {

// Bytes of last_error kept by Retry.
inline constexpr size_t kMaxDeliveryErrorBytes = 1024;

// Columns of every select below, in order.
enum OutboxColumn {
  kOutboxJobId = 0,
  kOutboxTenant,
  kOutboxUrl,
  kOutboxAttempts,
  kOutboxNextAt,
  kOutboxOwner,
  kOutboxLeaseUntil,
  kOutboxLastError,
  kOutboxCreated,
};

#define CR_OUTBOX_COLUMNS \
  "job_id, tenant, url, attempts, next_at_ms, owner, lease_until_ms, last_error, created_ms"

// The row owed by job ?1 (its tenant read from jobs), URL ?2, due from ?3
// (also its created_ms). A row already there is kept (a job becomes
// terminal once; this only guards a replayed insert). The SELECT's WHERE
// lets SQLite parse the upsert.
inline constexpr const char* kEnqueueDeliverySql =
    "INSERT INTO webhook_outbox (job_id, tenant, url, next_at_ms, created_ms) "
    "SELECT id, tenant, ?2, ?3, ?3 FROM jobs WHERE id = ?1 ON CONFLICT (job_id) DO NOTHING";
// ?1 now, ?2 rows: the due rows, by the index webhook_outbox_due. The
// server store appends kSkipLockedSuffix (job_queries.h).
inline constexpr const char* kSelectDueDeliveriesSql =
    "SELECT " CR_OUTBOX_COLUMNS
    " FROM webhook_outbox WHERE next_at_ms <= ?1 AND lease_until_ms < ?1 "
    "ORDER BY next_at_ms, job_id LIMIT ?2";
// PostgreSQL's claim in one statement: ?3 node, ?4 lease end.
inline constexpr const char* kPgClaimDeliveriesSql =
    "UPDATE webhook_outbox SET owner = ?3, lease_until_ms = ?4 WHERE job_id IN ("
    "SELECT job_id FROM webhook_outbox WHERE next_at_ms <= ?1 AND lease_until_ms < ?1 "
    "ORDER BY next_at_ms, job_id LIMIT ?2 FOR UPDATE SKIP LOCKED) RETURNING " CR_OUTBOX_COLUMNS;
// ?1 job, ?2 node, ?3 lease end (SQLite's claim, row by row).
inline constexpr const char* kLeaseDeliverySql =
    "UPDATE webhook_outbox SET owner = ?2, lease_until_ms = ?3 WHERE job_id = ?1";
// Delivered and GiveUp: ?1 job, ?2 node.
inline constexpr const char* kDeleteDeliverySql =
    "DELETE FROM webhook_outbox WHERE job_id = ?1 AND owner = ?2";
// Retry: ?1 job, ?2 node, ?3 next_at_ms, ?4 error.
inline constexpr const char* kRetryDeliverySql =
    "UPDATE webhook_outbox SET attempts = attempts + 1, next_at_ms = ?3, last_error = ?4, "
    "owner = '', lease_until_ms = 0 WHERE job_id = ?1 AND owner = ?2";
inline constexpr const char* kListDeliveriesSql =
    "SELECT " CR_OUTBOX_COLUMNS " FROM webhook_outbox";

#undef CR_OUTBOX_COLUMNS

// ClaimDeliveries' arguments: OK or InvalidArgument
// ("invalid_delivery_claim"). Pure.
inline Status CheckDeliveryClaimArgs(const std::string& node, int max, int64_t lease_ms) {
  if (node.empty()) {
    return InvalidArgumentError("a delivery claim needs a node", kReasonInvalidDeliveryClaim);
  }
  if (max < 1 || max > kMaxClaimDeliveries) {
    return InvalidArgumentError("a delivery claim takes 1..64 rows", kReasonInvalidDeliveryClaim);
  }
  if (lease_ms < 1 || lease_ms > kMaxDeliveryLeaseMs) {
    return InvalidArgumentError("a delivery lease is 1 ms..24 h", kReasonInvalidDeliveryClaim);
  }
  return OkStatus();
}

// A fenced report (Delivered, Retry, GiveUp) that changed no row.
inline Status DeliveryLost(const std::string& job_id, const std::string& node) {
  return FailedPreconditionError("the delivery of job " + job_id + " is not leased by node " + node,
                                 kReasonDeliveryLost);
}

// `error` cut to kMaxDeliveryErrorBytes.
inline std::string DeliveryError(const std::string& error) {
  return error.substr(0, std::min(error.size(), kMaxDeliveryErrorBytes));
}

// A delivery from a row whose `Text(column)` and `Int(column)` read
// OutboxColumn's columns.
template <typename Row>
WebhookDelivery ReadDeliveryFrom(const Row& row) {
  WebhookDelivery d;
  d.job_id = row.Text(kOutboxJobId);
  d.tenant = row.Text(kOutboxTenant);
  d.url = row.Text(kOutboxUrl);
  d.attempts = static_cast<int>(row.Int(kOutboxAttempts));
  d.next_at_ms = row.Int(kOutboxNextAt);
  d.owner = row.Text(kOutboxOwner);
  d.lease_until_ms = row.Int(kOutboxLeaseUntil);
  d.last_error = row.Text(kOutboxLastError);
  d.created_ms = row.Int(kOutboxCreated);
  return d;
}

// `deliveries` by (next_at_ms, job_id), as ClaimDeliveries returns them.
inline void SortByDue(std::vector<WebhookDelivery>& deliveries) {
  std::sort(
      deliveries.begin(), deliveries.end(), [](const WebhookDelivery& a, const WebhookDelivery& b) {
        return a.next_at_ms != b.next_at_ms ? a.next_at_ms < b.next_at_ms : a.job_id < b.job_id;
      });
}

// `deliveries` by job id, as ListDeliveries returns them.
inline void SortByJobId(std::vector<WebhookDelivery>& deliveries) {
  std::sort(deliveries.begin(), deliveries.end(),
            [](const WebhookDelivery& a, const WebhookDelivery& b) { return a.job_id < b.job_id; });
}

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_OUTBOX_QUERIES_H_
