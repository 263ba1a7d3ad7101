// The writes of a job's move on the PostgreSQL store, shared by Transition
// and the claim calls (pg_claims.cc). Internal to src/store. Run inside the
// caller's transaction, on the row it locked.
#ifndef CODERUNNER_SRC_STORE_POSTGRES_PG_JOB_WRITES_H_
#define CODERUNNER_SRC_STORE_POSTGRES_PG_JOB_WRITES_H_

#include <cstdint>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"
#include "job_queries.h"
#include "job_transition_rules.h"
#include "outbox_queries.h"
#include "pg_connection.h"

namespace coderunner::store {

// Writes the webhook_outbox row job `id` owes to `url`, due at `at_ms`
// (kEnqueueDeliverySql). Failure as PgConnection::Exec.
inline Status WriteDelivery(PgConnection& conn, const std::string& id, const std::string& url,
                            int64_t at_ms) {
  PgParams insert;
  insert.Bind(1, id);
  insert.Bind(2, url);
  insert.Bind(3, at_ms);
  return conn.Exec(kEnqueueDeliverySql, insert, "enqueue the webhook of job " + id).status();
}

// Moves job `id` to `to` at `at_ms` as `plan` says (kUpdateForTransitionSql),
// with its outbox row when the plan has a webhook. Failure as
// PgConnection::Exec.
inline Status WriteTransition(PgConnection& conn, const std::string& id, store::JobStatus to,
                              const TransitionUpdate& plan, int64_t at_ms,
                              const std::string& result_json, const std::string& image_digest) {
  PgParams update;
  BindTransitionUpdate(update, id, to, plan, at_ms, result_json, image_digest);
  CR_RETURN_IF_ERROR(conn.Exec(kUpdateForTransitionSql, update, "update job " + id).status());
  if (plan.webhook_url.empty()) return OkStatus();
  return WriteDelivery(conn, id, plan.webhook_url, at_ms);
}

// Stores `redacted` as job `id`'s request and callback (kRedactRequestSql).
inline Status WriteRedaction(PgConnection& conn, const std::string& id,
                             const StoredRequest& redacted) {
  PgParams redact;
  redact.Bind(1, id);
  redact.Bind(2, redacted.request_json);
  redact.Bind(3, redacted.callback_url);
  return conn.Exec(kRedactRequestSql, redact, "redact request of job " + id).status();
}

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_POSTGRES_PG_JOB_WRITES_H_
