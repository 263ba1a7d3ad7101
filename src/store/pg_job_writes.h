// The writes of a job's move on the PostgreSQL store, shared by Transition
// and the claim calls (pg_claims.cc). Internal to src/store. Run inside the
// caller's transaction, on the row it locked.
#ifndef CODERUNNER_SRC_STORE_PG_JOB_WRITES_H_
#define CODERUNNER_SRC_STORE_PG_JOB_WRITES_H_

#include <cstdint>
#include <string>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"
#include "job_queries.h"
#include "job_transition_rules.h"
#include "pg_connection.h"

namespace coderunner::store {

// Moves job `id` to `to` at `at_ms` as `plan` says (kUpdateForTransitionSql).
// Failure as PgConnection::Exec.
inline Status WriteTransition(PgConnection& conn, const std::string& id, store::JobStatus to,
                              const TransitionUpdate& plan, int64_t at_ms,
                              const std::string& result_json, const std::string& image_digest) {
  PgParams update;
  BindTransitionUpdate(update, id, to, plan, at_ms, result_json, image_digest);
  return conn.Exec(kUpdateForTransitionSql, update, "update job " + id).status();
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

#endif  // CODERUNNER_SRC_STORE_PG_JOB_WRITES_H_
