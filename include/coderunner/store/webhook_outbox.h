// WebhookOutbox: the webhook deliveries a job store owes, one row per
// finished job with a callback URL (table webhook_outbox).
//
// A row is written by the store itself, in the same transaction that makes
// a job with a non-empty callback_url terminal (JobStore::Transition,
// RequeueExpired ending a job, Insert of a terminal record), with the
// callback URL as it was before the request's redaction. So no result
// commits without its delivery, and a delivery survives a restart or the
// death of the node that finished the job. Nodes then lease due rows
// (ClaimDeliveries), send them, and report back (Delivered, Retry,
// GiveUp), each report fenced by the lease's owner: each webhook is sent at
// least once, by one node at a time. Both job stores implement it over
// their own database (SqliteJobStore, PgJobStore).
#ifndef CODERUNNER_STORE_WEBHOOK_OUTBOX_H_
#define CODERUNNER_STORE_WEBHOOK_OUTBOX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::store {

// ClaimDeliveries got an argument out of range. InvalidArgument.
inline constexpr const char* kReasonInvalidDeliveryClaim = "invalid_delivery_claim";
// Delivered, Retry or GiveUp found the row gone or leased by another node
// (its lease expired and another node claimed it). FailedPrecondition.
inline constexpr const char* kReasonDeliveryLost = "delivery_lost";

// ClaimDeliveries' bounds: rows per call, and lease length in milliseconds.
inline constexpr int kMaxClaimDeliveries = 64;
inline constexpr int64_t kMaxDeliveryLeaseMs = int64_t{24} * 60 * 60 * 1000;
inline constexpr size_t kMaxSkipTenants = 10000;

// One owed delivery, as stored. Plain data. Times are ms since the epoch.
struct WebhookDelivery {
  std::string job_id;
  std::string tenant;          // The job's tenant (whose key signs the delivery).
  std::string url;             // The callback URL, unredacted.
  int attempts = 0;            // Failed attempts so far (Retry adds one).
  int64_t next_at_ms = 0;      // Due from then on.
  std::string owner;           // The node leasing it; "" when none.
  int64_t lease_until_ms = 0;  // The lease holds until then (inclusive); 0 when none.
  std::string last_error;      // Of the last failed attempt; "" before one.
  int64_t created_ms = 0;      // When the job became terminal.
};

class WebhookOutbox {
 public:
  virtual ~WebhookOutbox() = default;

  // Leases to `node` (non-empty) up to `max` (1..kMaxClaimDeliveries) due
  // rows (next_at_ms <= now_ms and no live lease: lease_until_ms < now_ms),
  // until now_ms + `lease_ms` (1..kMaxDeliveryLeaseMs). Fair between
  // tenants: at most `per_tenant` (1..kMaxClaimDeliveries) rows of one
  // tenant, taken round-robin (every tenant's earliest due row, by
  // next_at_ms, then every tenant's second, ...), and none of a tenant in
  // `skip_tenants` (at most kMaxSkipTenants: those the node cannot send to
  // now). Returns them as stored after the claim, in that order; none when
  // nothing is due. Concurrent callers on any node never get the same row
  // while its lease holds; once it expired, anyone may take it again (at
  // least once). Cost: one query over the due rows. Arguments out of
  // range: InvalidArgument ("invalid_delivery_claim"). Thread-safe.
  virtual StatusOr<std::vector<WebhookDelivery>> ClaimDeliveries(
      const std::string& node, int max, int64_t now_ms, int64_t lease_ms,
      int per_tenant = kMaxClaimDeliveries, const std::vector<std::string>& skip_tenants = {}) = 0;

  // The receiver took delivery `job_id`: its row is deleted, if `node`
  // still owns it (even past its lease, when nobody took it since). Else
  // FailedPrecondition ("delivery_lost"): another node owns it now and
  // will send it again. Thread-safe.
  virtual Status Delivered(const std::string& job_id, const std::string& node) = 0;

  // An attempt failed with `error`: attempts + 1, due again at
  // `next_at_ms`, lease released. Fenced by `node` as Delivered. The error
  // is kept (truncated to 1024 bytes) for inspection. Thread-safe.
  virtual Status Retry(const std::string& job_id, const std::string& node, int64_t next_at_ms,
                       const std::string& error) = 0;

  // No more attempts (past the retries, or a refused address): the row is
  // deleted, like a delivery (its URL may hold a secret the job's own
  // record no longer does; the caller logs and counts the failure). Fenced
  // by `node` as Delivered. Thread-safe.
  virtual Status GiveUp(const std::string& job_id, const std::string& node) = 0;

  // Releases every row leased by `node` (owner "", lease 0): due again at
  // once. For a node starting under the name of a process of its own that
  // died holding them, so that they need not wait out their leases; never
  // while that node has deliveries in flight. Returns how many it released.
  // Thread-safe.
  virtual StatusOr<int> ReleaseDeliveries(const std::string& node) = 0;

  // Every row, leased or not, by job id (byte order): for tests, and for a
  // look at what is owed. Thread-safe.
  virtual StatusOr<std::vector<WebhookDelivery>> ListDeliveries() = 0;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_WEBHOOK_OUTBOX_H_
