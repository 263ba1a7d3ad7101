#include "job_transition_rules.h"

#include <algorithm>
#include <utility>

#include "job_queries.h"
#include "job_row_codec.h"
#include "store_errors.h"

namespace coderunner::store {

using store::JobRecord;
using store::JobStatus;

namespace {

constexpr int kMinListLimit = 1;
constexpr int kMaxListLimit = 500;

}  // namespace

StatusOr<std::vector<std::string>> InsertTransitions(const std::vector<JobRecord>& records) {
  std::vector<std::string> transitions;
  transitions.reserve(records.size());
  for (const JobRecord& job : records) {
    if (job.id.empty()) return InvalidArgumentError("job without id", kReasonInvalidJob);
    CR_ASSIGN_OR_RETURN(std::string json, TransitionsToJson(job.transitions));
    transitions.push_back(std::move(json));
  }
  return transitions;
}

StoredRequest RequestToInsert(const JobRecord& job, const RequestRedactor& redactor) {
  StoredRequest stored{job.request_json, job.callback_url};
  if (redactor && store::IsTerminal(job.status)) redactor(stored.request_json, stored.callback_url);
  return stored;
}

Status CheckTransitionArgs(JobStatus to, const std::string& result_json, int64_t artifact_bytes) {
  if (!store::IsTerminal(to) && (!result_json.empty() || artifact_bytes != 0)) {
    return InvalidArgumentError("a result and artifact bytes go only with a terminal status, not " +
                                    std::string(store::JobStatusName(to)),
                                kReasonInvalidTransition);
  }
  if (artifact_bytes < 0) {
    return InvalidArgumentError("artifact bytes must not be negative", kReasonInvalidTransition);
  }
  return OkStatus();
}

StatusOr<StoredJob> StoredJobForTransition(const std::string& id, TransitionRow row, JobStatus to,
                                           const std::string& fence_owner) {
  if (!fence_owner.empty() && row.owner != fence_owner) {
    return FailedPreconditionError("job " + id + " is no longer owned by " + fence_owner +
                                       "; cannot move it to " +
                                       std::string(store::JobStatusName(to)),
                                   kReasonLeaseLost);
  }
  std::optional<JobStatus> from = store::ParseJobStatus(row.status);
  if (!from) return CorruptError("job " + id + " has unknown status '" + row.status + "'");
  if (store::IsTerminal(*from)) {
    return FailedPreconditionError("job " + id + " is already " + row.status +
                                       "; cannot move it to " +
                                       std::string(store::JobStatusName(to)),
                                   kReasonJobTerminal);
  }
  StoredJob stored;
  CR_ASSIGN_OR_RETURN(stored.transitions, ParseTransitions(row.transitions, id));
  stored.request_json = std::move(row.request_json);
  stored.callback_url = std::move(row.callback_url);
  stored.progress_bytes = static_cast<int64_t>(row.progress_json.size());
  return stored;
}

StatusOr<TransitionUpdate> PlanTransition(const StoredJob& stored, JobStatus to, int64_t at_ms) {
  std::vector<store::Transition> transitions = stored.transitions;
  transitions.push_back({to, at_ms});
  TransitionUpdate update;
  CR_ASSIGN_OR_RETURN(update.transitions_json, TransitionsToJson(transitions));
  update.attempt_increment = to == JobStatus::kQueued ? 1 : 0;
  update.sets_started = to == JobStatus::kRunning;
  update.sets_finished = store::IsTerminal(to);
  update.sets_owner = to == JobStatus::kQueued;  // Owner "" and lease 0.
  if (store::IsTerminal(to)) update.webhook_url = stored.callback_url;
  return update;
}

void PlanFootprint(TransitionUpdate& plan, const StoredJob& stored,
                   const std::optional<StoredRequest>& redacted, const std::string& result_json,
                   int64_t artifact_bytes) {
  if (!plan.sets_finished) return;
  const std::string& request = redacted ? redacted->request_json : stored.request_json;
  const std::string& callback = redacted ? redacted->callback_url : stored.callback_url;
  plan.artifact_bytes = artifact_bytes;
  plan.output_bytes = OutputBytesOf(request, callback, result_json, "") + stored.progress_bytes;
}

std::optional<StoredRequest> RedactionFor(const RequestRedactor& redactor, const StoredJob& stored,
                                          JobStatus to) {
  if (!redactor || !store::IsTerminal(to)) return std::nullopt;
  StoredRequest redacted{stored.request_json, stored.callback_url};
  redactor(redacted.request_json, redacted.callback_url);
  if (redacted.request_json == stored.request_json &&
      redacted.callback_url == stored.callback_url) {
    return std::nullopt;
  }
  return redacted;
}

Status JobNotFound(const std::string& id) {
  return NotFoundError("job " + id + " not found", kReasonJobNotFound);
}

Status JobAlreadyTerminal(const std::string& id, const std::string& status_name) {
  return FailedPreconditionError("job " + id + " is already " + status_name, kReasonJobTerminal);
}

StatusOr<ListPlan> PlanList(const ListFilter& filter) {
  ListPlan plan;
  if (!filter.cursor.empty()) {
    plan.cursor = ParseListCursor(filter.cursor);
    if (!plan.cursor) return InvalidArgumentError("malformed list cursor", kReasonInvalidCursor);
  }
  plan.limit = std::clamp(filter.limit, kMinListLimit, kMaxListLimit);
  plan.fetch = static_cast<int64_t>(plan.limit) + 1;
  plan.sql = filter.status ? (plan.cursor ? kListByStatusAfterSql : kListByStatusSql)
                           : (plan.cursor ? kListAfterSql : kListSql);
  return plan;
}

ListPage FinishListPage(const ListPlan& plan, std::vector<JobRecord> rows) {
  ListPage page;
  page.jobs = std::move(rows);
  if (page.jobs.size() > static_cast<size_t>(plan.limit)) {
    page.jobs.resize(static_cast<size_t>(plan.limit));
    page.next_cursor = FormatListCursor(page.jobs.back());
  }
  return page;
}

}  // namespace coderunner::store
