// The row codec of the jobs table: a JobRecord to the bindings of an
// insert and back from a row, and the transitions column's JSON. Internal
// to src/store; the SQL texts that use this column order are in
// job_queries.h.
#ifndef CODERUNNER_SRC_STORE_JOB_ROW_CODEC_H_
#define CODERUNNER_SRC_STORE_JOB_ROW_CODEC_H_

#include <sqlite3.h>

#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"
#include "sqlite_statement.h"

namespace coderunner::store {

// The columns of a job row, in the order of kJobColumns (job_queries.h):
// the 0-based column read by ReadJob, and one less than the parameter
// bound by BindJob.
enum JobColumn : int {
  kColId = 0,
  kColTenant,
  kColStatus,
  kColLanguage,
  kColRequestJson,
  kColCodeSha256,
  kColInputsSha256,
  kColCacheKey,
  kColImage,
  kColImageDigest,
  kColLimitsJson,
  kColCallbackUrl,
  kColReplayOf,
  kColCached,
  kColAttempt,
  kColCreatedAtMs,
  kColStartedAtMs,
  kColFinishedAtMs,
  kColTransitions,
  kColResultJson,
  kColKind,
  kColProgressJson,
};

// `transitions` as the JSON array stored in the transitions column:
// [{"status": "<name>", "at_ms": <int>}, ...]. Internal ("store_error")
// if it cannot be serialized.
StatusOr<std::string> TransitionsToJson(const std::vector<store::Transition>& transitions);

// Parses the transitions column `text` of job `id` (named in errors). Not
// a JSON array of {status, at_ms} with known statuses: Internal
// ("store_corrupt").
StatusOr<std::vector<store::Transition>> ParseTransitions(std::string_view text,
                                                          const std::string& id);

// Binds `job` to the parameters ?1..?22 of an insert in kJobColumns order,
// with `request_json`, `callback_url` and `transitions_json` in place of
// the record's own (the store redacts the first two and serializes the
// third). Binding failures surface at the statement's Step. Every value is
// copied into the statement.
void BindJob(ScopedStatement& insert, const store::JobRecord& job, std::string_view request_json,
             std::string_view callback_url, std::string_view transitions_json);

// Reads the current row of `stmt`, in kJobColumns (or kListColumns) order.
// An unknown status or unreadable transitions: Internal ("store_corrupt").
StatusOr<store::JobRecord> ReadJob(sqlite3_stmt* stmt);

// Steps `stmt` to its end and reads every row as a job; step failures as
// ScopedStatement::Step with `what` as context, rows as ReadJob.
StatusOr<std::vector<store::JobRecord>> ReadJobs(ScopedStatement& stmt, std::string_view what);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_JOB_ROW_CODEC_H_
