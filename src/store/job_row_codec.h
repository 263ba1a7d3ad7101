// The row codec of the jobs table, for every backend: a JobRecord to the
// bindings of an insert and back from a row, and the transitions column's
// JSON. Internal to src/store; the SQL texts that use this column order are
// in job_queries.h, each backend's binder and row in its own directory
// (sqlite/sqlite_rows.h, postgres/pg_rows.h).
#ifndef CODERUNNER_SRC_STORE_JOB_ROW_CODEC_H_
#define CODERUNNER_SRC_STORE_JOB_ROW_CODEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"

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
  kColOwner,
  kColLeaseExpiresAtMs,
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

// Internal ("store_corrupt"): job `id` has the unknown status `status`.
Status UnknownStatusError(const std::string& id, const std::string& status);

// The output_bytes of a terminal record that stores these texts (see
// store::Footprint). Pure.
inline int64_t OutputBytesOf(std::string_view request_json, std::string_view callback_url,
                             std::string_view result_json, std::string_view progress_json) {
  return static_cast<int64_t>(request_json.size() + callback_url.size() + result_json.size() +
                              progress_json.size());
}

// The parameter of kInsertJobSql after the columns: the record's
// output_bytes.
inline constexpr int kInsertOutputBytesParam = kColLeaseExpiresAtMs + 2;

// Binds `job` to the parameters ?1..?24 of an insert in kJobColumns order
// on `binder` (a ScopedStatement, PgParams: Bind(int, string_view),
// Bind(int, int64_t), BindBool(int, bool), 1-based), with `request_json`,
// `callback_url` and `transitions_json` in place of the record's own (the
// store redacts the first two and serializes the third), and its
// output_bytes (OutputBytesOf, over what is stored) to ?25.
template <typename Binder>
void BindJobTo(Binder& binder, const store::JobRecord& job, std::string_view request_json,
               std::string_view callback_url, std::string_view transitions_json) {
  auto param = [](JobColumn column) { return static_cast<int>(column) + 1; };
  binder.Bind(param(kColId), job.id);
  binder.Bind(param(kColTenant), job.tenant);
  binder.Bind(param(kColStatus), store::JobStatusName(job.status));
  binder.Bind(param(kColLanguage), job.language);
  binder.Bind(param(kColRequestJson), request_json);
  binder.Bind(param(kColCodeSha256), job.code_sha256);
  binder.Bind(param(kColInputsSha256), job.inputs_sha256);
  binder.Bind(param(kColCacheKey), job.cache_key);
  binder.Bind(param(kColImage), job.image);
  binder.Bind(param(kColImageDigest), job.image_digest);
  binder.Bind(param(kColLimitsJson), job.limits_json);
  binder.Bind(param(kColCallbackUrl), callback_url);
  binder.Bind(param(kColReplayOf), job.replay_of);
  binder.BindBool(param(kColCached), job.cached);
  binder.Bind(param(kColAttempt), static_cast<int64_t>(job.attempt));
  binder.Bind(param(kColCreatedAtMs), job.created_at_ms);
  binder.Bind(param(kColStartedAtMs), job.started_at_ms);
  binder.Bind(param(kColFinishedAtMs), job.finished_at_ms);
  binder.Bind(param(kColTransitions), transitions_json);
  binder.Bind(param(kColResultJson), job.result_json);
  binder.Bind(param(kColKind), job.kind);
  binder.Bind(param(kColProgressJson), job.progress_json);
  binder.Bind(param(kColOwner), job.owner);
  binder.Bind(param(kColLeaseExpiresAtMs), job.lease_expires_at_ms);
  binder.Bind(kInsertOutputBytesParam,
              OutputBytesOf(request_json, callback_url, job.result_json, job.progress_json));
}

// Reads a job from `row` (Text(int column) -> std::string, Int(int column)
// -> int64_t, 0-based), in kJobColumns (or kListColumns) order. An
// unknown status or unreadable transitions: Internal ("store_corrupt").
template <typename Row>
StatusOr<store::JobRecord> ReadJobFrom(const Row& row) {
  store::JobRecord job;
  job.id = row.Text(kColId);
  job.tenant = row.Text(kColTenant);
  std::string status = row.Text(kColStatus);
  std::optional<store::JobStatus> parsed = store::ParseJobStatus(status);
  if (!parsed) return UnknownStatusError(job.id, status);
  job.status = *parsed;
  job.language = row.Text(kColLanguage);
  job.request_json = row.Text(kColRequestJson);
  job.code_sha256 = row.Text(kColCodeSha256);
  job.inputs_sha256 = row.Text(kColInputsSha256);
  job.cache_key = row.Text(kColCacheKey);
  job.image = row.Text(kColImage);
  job.image_digest = row.Text(kColImageDigest);
  job.limits_json = row.Text(kColLimitsJson);
  job.callback_url = row.Text(kColCallbackUrl);
  job.replay_of = row.Text(kColReplayOf);
  job.cached = row.Int(kColCached) != 0;
  job.attempt = static_cast<int>(row.Int(kColAttempt));
  job.created_at_ms = row.Int(kColCreatedAtMs);
  job.started_at_ms = row.Int(kColStartedAtMs);
  job.finished_at_ms = row.Int(kColFinishedAtMs);
  CR_ASSIGN_OR_RETURN(job.transitions, ParseTransitions(row.Text(kColTransitions), job.id));
  job.result_json = row.Text(kColResultJson);
  job.kind = row.Text(kColKind);
  job.progress_json = row.Text(kColProgressJson);
  job.owner = row.Text(kColOwner);
  job.lease_expires_at_ms = row.Int(kColLeaseExpiresAtMs);
  return job;
}

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_JOB_ROW_CODEC_H_
