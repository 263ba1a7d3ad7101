// The webhook outbox's SQL (WebhookOutbox), the same text for SQLite and
// PostgreSQL (?N placeholders; PgConnection turns them into $N), its
// argument checks and its row reader. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_OUTBOX_QUERIES_H_
#define CODERUNNER_SRC_STORE_OUTBOX_QUERIES_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
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
// The due rows a claim takes (see ClaimDeliveries): ?1 now, ?2 rows, ?5
// tenants to skip (a JSON array of strings), ?6 rows per tenant. Each
// tenant's due rows are ranked by (next_at_ms, job_id); the claim takes
// rank 1 of every tenant first, then rank 2, ...
#define CR_OUTBOX_DUE "next_at_ms <= ?1 AND lease_until_ms < ?1"
#define CR_OUTBOX_RANKED(json_elements)                                          \
  "SELECT " CR_OUTBOX_COLUMNS                                                    \
  ", row_number() OVER (PARTITION BY tenant ORDER BY next_at_ms, job_id) AS rn " \
  "FROM webhook_outbox WHERE " CR_OUTBOX_DUE " AND tenant NOT IN (" json_elements ")"
#define CR_OUTBOX_FAIR_ORDER " WHERE rn <= ?6 ORDER BY rn, next_at_ms, job_id LIMIT ?2"
// SQLite (window functions since 3.25, json_each since 3.38 built in).
inline constexpr const char* kSelectDueDeliveriesSql =
    "SELECT " CR_OUTBOX_COLUMNS
    " FROM (" CR_OUTBOX_RANKED("SELECT value FROM json_each(?5)") ")" CR_OUTBOX_FAIR_ORDER;
// PostgreSQL's claim in one statement: ?3 node, ?4 lease end. The ranked
// rows are locked SKIP LOCKED, due-checked again on the row locked (a
// row another node claimed since the snapshot is no longer due).
inline constexpr const char* kPgClaimDeliveriesSql =
    "UPDATE webhook_outbox SET owner = ?3, lease_until_ms = ?4 WHERE job_id IN ("
    "SELECT job_id FROM webhook_outbox WHERE " CR_OUTBOX_DUE
    " AND job_id IN (SELECT job_id FROM "
    "(" CR_OUTBOX_RANKED(
        "SELECT json_array_elements_text(?5::json)") ") ranked" CR_OUTBOX_FAIR_ORDER
                                                     ") FOR UPDATE SKIP LOCKED) "
                                                     "RETURNING " CR_OUTBOX_COLUMNS;
#undef CR_OUTBOX_DUE
#undef CR_OUTBOX_RANKED
#undef CR_OUTBOX_FAIR_ORDER
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
// ReleaseDeliveries: ?1 node.
inline constexpr const char* kReleaseDeliveriesSql =
    "UPDATE webhook_outbox SET owner = '', lease_until_ms = 0 WHERE owner = ?1";
inline constexpr const char* kListDeliveriesSql =
    "SELECT " CR_OUTBOX_COLUMNS " FROM webhook_outbox";

#undef CR_OUTBOX_COLUMNS

// ClaimDeliveries' arguments: OK or InvalidArgument
// ("invalid_delivery_claim"). Pure.
inline Status CheckDeliveryClaimArgs(const std::string& node, int max, int64_t lease_ms,
                                     int per_tenant, const std::vector<std::string>& skip) {
  if (node.empty()) {
    return InvalidArgumentError("a delivery claim needs a node", kReasonInvalidDeliveryClaim);
  }
  if (max < 1 || max > kMaxClaimDeliveries || per_tenant < 1 || per_tenant > kMaxClaimDeliveries) {
    return InvalidArgumentError("a delivery claim takes 1..64 rows, 1..64 per tenant",
                                kReasonInvalidDeliveryClaim);
  }
  if (lease_ms < 1 || lease_ms > kMaxDeliveryLeaseMs) {
    return InvalidArgumentError("a delivery lease is 1 ms..24 h", kReasonInvalidDeliveryClaim);
  }
  if (skip.size() > kMaxSkipTenants) {
    return InvalidArgumentError("a delivery claim skips at most 10000 tenants",
                                kReasonInvalidDeliveryClaim);
  }
  return OkStatus();
}

// Binds a claim's ?1, ?2, ?5 and ?6 (kSelectDueDeliveriesSql,
// kPgClaimDeliveriesSql) on `stmt` (a ScopedStatement or PgParams).
template <typename Statement>
void BindDueDeliveries(Statement& stmt, int64_t now_ms, int max, int per_tenant,
                       const std::vector<std::string>& skip_tenants) {
  stmt.Bind(1, now_ms);
  stmt.Bind(2, static_cast<int64_t>(max));
  stmt.Bind(5, nlohmann::json(skip_tenants).dump());
  stmt.Bind(6, static_cast<int64_t>(per_tenant));
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

// `deliveries` in a claim's order: each tenant's ranked by (next_at_ms,
// job_id), then by (rank, next_at_ms, job_id).
inline void SortFair(std::vector<WebhookDelivery>& deliveries) {
  auto by_due = [](const WebhookDelivery& a, const WebhookDelivery& b) {
    return a.next_at_ms != b.next_at_ms ? a.next_at_ms < b.next_at_ms : a.job_id < b.job_id;
  };
  std::sort(deliveries.begin(), deliveries.end(), by_due);
  std::map<std::string, int> seen;
  std::vector<std::pair<int, WebhookDelivery>> ranked;
  for (WebhookDelivery& d : deliveries) {
    int rank = ++seen[d.tenant];
    ranked.emplace_back(rank, std::move(d));
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  deliveries.clear();
  for (auto& [rank, d] : ranked) deliveries.push_back(std::move(d));
}

// `deliveries` by job id, as ListDeliveries returns them.
inline void SortByJobId(std::vector<WebhookDelivery>& deliveries) {
  std::sort(deliveries.begin(), deliveries.end(),
            [](const WebhookDelivery& a, const WebhookDelivery& b) { return a.job_id < b.job_id; });
}

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_OUTBOX_QUERIES_H_
