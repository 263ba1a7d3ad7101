// PgJobStore's webhook outbox (WebhookOutbox): table webhook_outbox of the
// shared database. A claim is one statement whose rows are locked FOR
// UPDATE SKIP LOCKED, so that nodes claiming together take disjoint rows
// without waiting on each other; each report is one fenced statement.
#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/store/postgres/pg_job_store.h"
#include "outbox_queries.h"
#include "pg_connection.h"
#include "pg_pool.h"

namespace coderunner::store {
namespace {

// Row `row` of a PgResult, as ReadDeliveryFrom reads it. Borrows `result`.
struct PgOutboxRow {
  const PgResult& result;
  int row;
  std::string Text(int column) const { return result.Text(row, column); }
  int64_t Int(int column) const { return result.Int(row, column); }
};

std::vector<WebhookDelivery> PgReadDeliveries(const PgResult& rows) {
  std::vector<WebhookDelivery> out;
  out.reserve(static_cast<size_t>(rows.rows()));
  for (int row = 0; row < rows.rows(); ++row) {
    out.push_back(ReadDeliveryFrom(PgOutboxRow{rows, row}));
  }
  return out;
}

}  // namespace

StatusOr<std::vector<WebhookDelivery>> PgJobStore::ClaimDeliveries(
    const std::string& node, int max, int64_t now_ms, int64_t lease_ms, int per_tenant,
    const std::vector<std::string>& skip_tenants) {
  CR_RETURN_IF_ERROR(CheckDeliveryClaimArgs(node, max, lease_ms, per_tenant, skip_tenants));
  PgParams params;
  BindDueDeliveries(params, now_ms, max, per_tenant, skip_tenants);
  params.Bind(3, node);
  params.Bind(4, now_ms + lease_ms);
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(PgResult rows,
                      conn->Exec(kPgClaimDeliveriesSql, params, "claim due webhooks"));
  std::vector<WebhookDelivery> due = PgReadDeliveries(rows);
  SortFair(due);
  return due;
}

Status PgJobStore::Delivered(const std::string& job_id, const std::string& node) {
  PgParams params;
  params.Bind(1, job_id);
  params.Bind(2, node);
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(
      PgResult done, conn->Exec(kDeleteDeliverySql, params, "remove the webhook of job " + job_id));
  if (done.affected() == 0) return DeliveryLost(job_id, node);
  return OkStatus();
}

Status PgJobStore::Retry(const std::string& job_id, const std::string& node, int64_t next_at_ms,
                         const std::string& error) {
  PgParams params;
  params.Bind(1, job_id);
  params.Bind(2, node);
  params.Bind(3, next_at_ms);
  params.Bind(4, DeliveryError(error));
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(PgResult done,
                      conn->Exec(kRetryDeliverySql, params, "retry the webhook of job " + job_id));
  if (done.affected() == 0) return DeliveryLost(job_id, node);
  return OkStatus();
}

Status PgJobStore::GiveUp(const std::string& job_id, const std::string& node) {
  return Delivered(job_id, node);  // The same removal, fenced the same way.
}

StatusOr<int> PgJobStore::ReleaseDeliveries(const std::string& node) {
  PgParams params;
  params.Bind(1, node);
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(PgResult done, conn->Exec(kReleaseDeliveriesSql, params,
                                                "release the webhooks of node " + node));
  return static_cast<int>(done.affected());
}

StatusOr<std::vector<WebhookDelivery>> PgJobStore::ListDeliveries() {
  CR_ASSIGN_OR_RETURN(PgPool::Lease conn, pool_->Acquire());
  CR_ASSIGN_OR_RETURN(PgResult rows, conn->Exec(kListDeliveriesSql, {}, "list webhooks"));
  std::vector<WebhookDelivery> out = PgReadDeliveries(rows);
  SortByJobId(out);
  return out;
}

}  // namespace coderunner::store
