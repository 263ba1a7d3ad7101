// The rules every JobStore backend shares, apart from its SQL: what a
// transition may do and what it writes, when a finished job's request is
// redacted, and how a list page is planned and cut. Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_JOB_TRANSITION_RULES_H_
#define CODERUNNER_SRC_STORE_JOB_TRANSITION_RULES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"
#include "coderunner/store/job_store.h"
#include "list_cursor.h"

namespace coderunner::store {

inline constexpr const char* kReasonInvalidJob = "invalid_job";
inline constexpr const char* kReasonInvalidTransition = "invalid_transition";

// The transitions JSON of each of `records`, in order. A record without an
// id is InvalidArgument ("invalid_job"); a serialization failure Internal.
StatusOr<std::vector<std::string>> InsertTransitions(const std::vector<store::JobRecord>& records);

// The request and callback to store for a new `job`: its own, redacted by
// `redactor` (may be null) when the job is inserted already terminal.
struct StoredRequest {
  std::string request_json;
  std::string callback_url;
};
StoredRequest RequestToInsert(const store::JobRecord& job, const RequestRedactor& redactor);

// The callback URL a new `job` owes a webhook to: its own when it is
// inserted already terminal (a cache hit), else "".
inline const std::string& OwedWebhookUrl(const store::JobRecord& job) {
  static const std::string kNone;
  return store::IsTerminal(job.status) ? job.callback_url : kNone;
}

// A result and artifact bytes are only stored with a terminal `to`, and
// artifact bytes are never negative: else InvalidArgument
// ("invalid_transition").
Status CheckTransitionArgs(store::JobStatus to, const std::string& result_json,
                           int64_t artifact_bytes = 0);

// What Transition reads of a job before it moves it.
struct StoredJob {
  std::vector<store::Transition> transitions;
  std::string request_json;    // As stored.
  std::string callback_url;    // As stored.
  int64_t progress_bytes = 0;  // Of progress_json, as stored.
};

// The columns of kSelectForTransitionSql, as text.
struct TransitionRow {
  std::string status;
  std::string transitions;
  std::string request_json;
  std::string callback_url;
  std::string owner;
  std::string progress_json;
};

// The row of job `id` as read for a move to `to` (`row`), fenced by
// `fence_owner` ("" for none). An owner other than a non-empty
// `fence_owner`: FailedPrecondition ("lease_lost"); then an unknown status
// or unreadable transitions: Internal ("store_corrupt"); a terminal
// status: FailedPrecondition ("job_terminal").
StatusOr<StoredJob> StoredJobForTransition(const std::string& id, TransitionRow row,
                                           store::JobStatus to, const std::string& fence_owner);

// The values of the update that moves a job (job_queries.h's
// kUpdateForTransitionSql, parameters ?3, ?4, ?5, ?7, ?10..?14).
struct TransitionUpdate {
  std::string transitions_json;   // The stored transitions plus the new one.
  int64_t attempt_increment = 0;  // 1 when going back to queued (recovery).
  bool sets_started = false;      // Going to running.
  bool sets_finished = false;     // Going to a terminal status.
  // Going to queued (owner "", lease 0) or claimed (PlanClaim): the job's
  // owner and lease become these.
  bool sets_owner = false;
  std::string owner;
  int64_t lease_expires_at_ms = 0;
  // Going to a terminal status with a callback: the URL (as stored,
  // unredacted) of the webhook_outbox row written with the move; "" none.
  std::string webhook_url;
  // Going to a terminal status: the footprint recorded (PlanFootprint).
  int64_t artifact_bytes = 0;
  int64_t output_bytes = 0;
};
StatusOr<TransitionUpdate> PlanTransition(const StoredJob& stored, store::JobStatus to,
                                          int64_t at_ms);

// Sets `plan`'s footprint for a move to a terminal status: `artifact_bytes`,
// and the output_bytes of the record once moved (OutputBytesOf over
// `result_json`, `stored`'s progress, and its request and callback as
// `redacted` leaves them, if it changes them). A no-op unless
// plan.sets_finished.
void PlanFootprint(TransitionUpdate& plan, const StoredJob& stored,
                   const std::optional<StoredRequest>& redacted, const std::string& result_json,
                   int64_t artifact_bytes);

// Binds kUpdateForTransitionSql's parameters on `update` (a
// ScopedStatement or PgParams): job `id` moves to `to` at `at_ms` as
// `plan` says. `result_json` is bound borrowed where the binder can (a
// result can be several MiB): it must outlive the statement's run.
template <typename Binder>
void BindTransitionUpdate(Binder& update, const std::string& id, store::JobStatus to,
                          const TransitionUpdate& plan, int64_t at_ms,
                          const std::string& result_json, const std::string& image_digest) {
  update.Bind(1, id);
  update.Bind(2, store::JobStatusName(to));
  update.Bind(3, plan.transitions_json);
  update.Bind(4, plan.attempt_increment);
  update.BindBool(5, plan.sets_started);
  update.Bind(6, at_ms);
  update.BindBool(7, plan.sets_finished);
  update.BindBorrowed(8, result_json);
  update.Bind(9, image_digest);
  update.BindBool(10, plan.sets_owner);
  update.Bind(11, plan.owner);
  update.Bind(12, plan.lease_expires_at_ms);
  update.Bind(13, plan.artifact_bytes);
  update.Bind(14, plan.output_bytes);
}

// The redacted request and callback of a job moving to terminal `to`, or
// nullopt when nothing changes (no redactor, not terminal, nothing secret).
std::optional<StoredRequest> RedactionFor(const RequestRedactor& redactor, const StoredJob& stored,
                                          store::JobStatus to);

// Job `id` is not in the store: NotFound ("job_not_found").
Status JobNotFound(const std::string& id);
// UpdateProgress found no live job `id` whose status is `status_name`:
// FailedPrecondition ("job_terminal").
Status JobAlreadyTerminal(const std::string& id, const std::string& status_name);

// How List reads one page: the SQL text (job_queries.h, parameters ?1
// tenant, ?2 status, ?3/?4 cursor, ?5 rows to fetch), the cursor and the
// page size (1..500). A malformed cursor is InvalidArgument
// ("invalid_cursor").
struct ListPlan {
  const char* sql = nullptr;
  std::optional<ListCursor> cursor;
  int limit = 0;
  int64_t fetch = 0;  // limit + 1: one more row tells whether a next page exists.
};
StatusOr<ListPlan> PlanList(const ListFilter& filter);

// Cuts the `fetch` rows read for `plan` to a page and sets its next_cursor.
ListPage FinishListPage(const ListPlan& plan, std::vector<store::JobRecord> rows);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_JOB_TRANSITION_RULES_H_
