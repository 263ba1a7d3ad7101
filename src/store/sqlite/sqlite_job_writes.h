// The writes of a job's move on the SQLite store, shared by Transition and
// the claim calls (sqlite_claims.cc). Internal to src/store. Run inside
// the caller's transaction, under the store's mutex.
#ifndef CODERUNNER_SRC_STORE_SQLITE_SQLITE_JOB_WRITES_H_
#define CODERUNNER_SRC_STORE_SQLITE_SQLITE_JOB_WRITES_H_

#include <cstdint>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"
#include "job_queries.h"
#include "job_transition_rules.h"
#include "outbox_queries.h"
#include "sqlite_statement.h"

namespace coderunner::store {

// Writes the webhook_outbox row job `id` owes to `url`, due at `at_ms`
// (kEnqueueDeliverySql). Failure as ScopedStatement::Run.
inline Status WriteDelivery(SqliteStatementCache& statements, const std::string& id,
                            const std::string& url, int64_t at_ms) {
  CR_ASSIGN_OR_RETURN(ScopedStatement insert, statements.Prepare(kEnqueueDeliverySql));
  insert.Bind(1, id);
  insert.Bind(2, url);
  insert.Bind(3, at_ms);
  return insert.Run("enqueue the webhook of job " + id);
}

// Moves job `id` to `to` at `at_ms` as `plan` says (kUpdateForTransitionSql;
// `result_json` borrowed until it returns), with its outbox row when the
// plan has a webhook. Failure as ScopedStatement::Run.
inline Status WriteTransition(SqliteStatementCache& statements, const std::string& id,
                              store::JobStatus to, const TransitionUpdate& plan, int64_t at_ms,
                              const std::string& result_json, const std::string& image_digest) {
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement update, statements.Prepare(kUpdateForTransitionSql));
    BindTransitionUpdate(update, id, to, plan, at_ms, result_json, image_digest);
    CR_RETURN_IF_ERROR(update.Run("update job " + id));
  }
  if (plan.webhook_url.empty()) return OkStatus();
  return WriteDelivery(statements, id, plan.webhook_url, at_ms);
}

// Stores `redacted` as job `id`'s request and callback (kRedactRequestSql).
inline Status WriteRedaction(SqliteStatementCache& statements, const std::string& id,
                             const StoredRequest& redacted) {
  CR_ASSIGN_OR_RETURN(ScopedStatement update, statements.Prepare(kRedactRequestSql));
  update.Bind(1, id);
  update.Bind(2, redacted.request_json);
  update.Bind(3, redacted.callback_url);
  return update.Run("redact request of job " + id);
}

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_SQLITE_JOB_WRITES_H_
