// SqliteJobStore's webhook outbox (WebhookOutbox): table webhook_outbox of
// the job database. Under the store's mutex, so one claim at a time; a
// claim selects and leases its rows in one transaction.
#include <sqlite3.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "outbox_queries.h"
#include "sqlite_statement.h"
#include "sqlite_transaction.h"

namespace coderunner::store {
namespace {

// The current row of a SELECT, as ReadDeliveryFrom reads it. Borrows `stmt`.
struct SqliteOutboxRow {
  sqlite3_stmt* stmt;
  std::string Text(int column) const { return ColumnString(stmt, column); }
  int64_t Int(int column) const { return sqlite3_column_int64(stmt, column); }
};

// Every row of `select` (bound), as deliveries.
StatusOr<std::vector<WebhookDelivery>> SqliteReadDeliveries(ScopedStatement& select,
                                                            std::string_view what) {
  std::vector<WebhookDelivery> out;
  while (true) {
    CR_ASSIGN_OR_RETURN(bool row, select.Step(what));
    if (!row) break;
    out.push_back(ReadDeliveryFrom(SqliteOutboxRow{select.get()}));
  }
  return out;
}

}  // namespace

StatusOr<std::vector<WebhookDelivery>> SqliteJobStore::ClaimDeliveries(
    const std::string& node, int max, int64_t now_ms, int64_t lease_ms, int per_tenant,
    const std::vector<std::string>& skip_tenants) {
  CR_RETURN_IF_ERROR(CheckDeliveryClaimArgs(node, max, lease_ms, per_tenant, skip_tenants));
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);
  CR_RETURN_IF_ERROR(txn.Begin());
  std::vector<WebhookDelivery> due;
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kSelectDueDeliveriesSql));
    BindDueDeliveries(select, now_ms, max, per_tenant, skip_tenants);
    CR_ASSIGN_OR_RETURN(due, SqliteReadDeliveries(select, "select due webhooks"));
  }
  if (due.empty()) return due;
  for (WebhookDelivery& d : due) {
    CR_ASSIGN_OR_RETURN(ScopedStatement lease, statements_->Prepare(kLeaseDeliverySql));
    lease.Bind(1, d.job_id);
    lease.Bind(2, node);
    lease.Bind(3, now_ms + lease_ms);
    CR_RETURN_IF_ERROR(lease.Run("lease the webhook of job " + d.job_id));
    d.owner = node;
    d.lease_until_ms = now_ms + lease_ms;
  }
  CR_RETURN_IF_ERROR(txn.Commit());
  return due;
}

Status SqliteJobStore::Delivered(const std::string& job_id, const std::string& node) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement remove, statements_->Prepare(kDeleteDeliverySql));
  remove.Bind(1, job_id);
  remove.Bind(2, node);
  CR_RETURN_IF_ERROR(remove.Run("remove the webhook of job " + job_id));
  if (sqlite3_changes(db_) == 0) return DeliveryLost(job_id, node);
  return OkStatus();
}

Status SqliteJobStore::Retry(const std::string& job_id, const std::string& node, int64_t next_at_ms,
                             const std::string& error) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement retry, statements_->Prepare(kRetryDeliverySql));
  retry.Bind(1, job_id);
  retry.Bind(2, node);
  retry.Bind(3, next_at_ms);
  retry.Bind(4, DeliveryError(error));
  CR_RETURN_IF_ERROR(retry.Run("retry the webhook of job " + job_id));
  if (sqlite3_changes(db_) == 0) return DeliveryLost(job_id, node);
  return OkStatus();
}

Status SqliteJobStore::GiveUp(const std::string& job_id, const std::string& node) {
  return Delivered(job_id, node);  // The same removal, fenced the same way.
}

StatusOr<int> SqliteJobStore::ReleaseDeliveries(const std::string& node) {
  std::lock_guard<std::mutex> lock(mu_);
  CR_ASSIGN_OR_RETURN(ScopedStatement release, statements_->Prepare(kReleaseDeliveriesSql));
  release.Bind(1, node);
  CR_RETURN_IF_ERROR(release.Run("release the webhooks of node " + node));
  return sqlite3_changes(db_);
}

StatusOr<std::vector<WebhookDelivery>> SqliteJobStore::ListDeliveries() {
  std::vector<WebhookDelivery> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    CR_ASSIGN_OR_RETURN(ScopedStatement select, statements_->Prepare(kListDeliveriesSql));
    CR_ASSIGN_OR_RETURN(out, SqliteReadDeliveries(select, "list webhooks"));
  }
  SortByJobId(out);
  return out;
}

}  // namespace coderunner::store
