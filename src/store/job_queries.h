// The SQL texts of the jobs and cache tables, shared by the SQLite and
// PostgreSQL stores (PgConnection turns ?N into $N). Internal to src/store. Columns are
// listed in JobColumn order (job_row_codec.h), which ReadJob reads.
#ifndef CODERUNNER_SRC_STORE_JOB_QUERIES_H_
#define CODERUNNER_SRC_STORE_JOB_QUERIES_H_

namespace coderunner::store {

// Every column, in JobColumn order.
#define CR_JOB_COLUMNS                                                                         \
  "id, tenant, status, language, request_json, code_sha256, inputs_sha256, cache_key, image, " \
  "image_digest, limits_json, callback_url, replay_of, cached, attempt, created_at_ms, "       \
  "started_at_ms, finished_at_ms, transitions, result_json, kind, progress_json, owner, "      \
  "lease_expires_at_ms"
// The same, with request_json, result_json and progress_json left empty
// (list pages).
#define CR_LIST_COLUMNS                                                                  \
  "id, tenant, status, language, '', code_sha256, inputs_sha256, cache_key, image, "     \
  "image_digest, limits_json, callback_url, replay_of, cached, attempt, created_at_ms, " \
  "started_at_ms, finished_at_ms, transitions, '', kind, '', owner, lease_expires_at_ms"

// ?25: the record's output_bytes (OutputBytesOf).
inline constexpr const char* kInsertJobSql =
    "INSERT INTO jobs (" CR_JOB_COLUMNS
    ", output_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
    "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, CAST(?25 AS BIGINT))";
inline constexpr const char* kGetJobSql =
    "SELECT " CR_JOB_COLUMNS " FROM jobs WHERE id = ?1 AND (?2 = '' OR tenant = ?2)";
// Progress of a job that is not terminal yet (see UpdateProgress).
inline constexpr const char* kUpdateProgressSql =
    "UPDATE jobs SET progress_json = ?2 WHERE id = ?1 AND status IN ('queued', 'running')";
inline constexpr const char* kSelectForTransitionSql =
    "SELECT status, transitions, request_json, callback_url, owner, progress_json FROM jobs "
    "WHERE id = ?1";
inline constexpr const char* kRedactRequestSql =
    "UPDATE jobs SET request_json = ?2, callback_url = ?3 WHERE id = ?1";
inline constexpr const char* kUpdateForTransitionSql =
    "UPDATE jobs SET status = ?2, transitions = ?3, attempt = attempt + ?4, "
    "started_at_ms = CASE WHEN ?5 THEN ?6 ELSE started_at_ms END, "
    "finished_at_ms = CASE WHEN ?7 THEN ?6 ELSE finished_at_ms END, "
    "result_json = CASE WHEN ?8 <> '' THEN ?8 ELSE result_json END, "
    "image_digest = CASE WHEN ?9 <> '' THEN ?9 ELSE image_digest END, "
    "owner = CASE WHEN ?10 THEN ?11 ELSE owner END, "
    "lease_expires_at_ms = CASE WHEN ?10 THEN ?12 ELSE lease_expires_at_ms END, "
    "artifact_bytes = CASE WHEN ?7 THEN CAST(?13 AS BIGINT) ELSE artifact_bytes END, "
    "output_bytes = CASE WHEN ?7 THEN CAST(?14 AS BIGINT) ELSE output_bytes END "
    "WHERE id = ?1";
// Claims (JobStore::Claim, RenewLeases, RequeueExpired). The server store
// appends kSkipLockedSuffix to the two selects.
// ?1 rows to take; by the index jobs_for_claim.
inline constexpr const char* kSelectClaimableSql =
    "SELECT " CR_JOB_COLUMNS
    " FROM jobs WHERE status = 'queued' ORDER BY created_at_ms, id LIMIT ?1";
// PostgreSQL's Claim in one statement: the oldest ?1 queued jobs, locked
// SKIP LOCKED, go to running at ?2, owned by ?3 with a lease until ?4; ?5
// is the running transition as TransitionsToJson writes it, less its '[',
// appended to the stored array in place (the text the codec would write).
// Whole rows, after the move, in no particular order.
inline constexpr const char* kPgClaimSql =
    "UPDATE jobs SET status = 'running', started_at_ms = ?2, owner = ?3, "
    "lease_expires_at_ms = ?4, transitions = left(transitions, -1) || "
    "CASE WHEN transitions = '[]' THEN '' ELSE ',' END || ?5 "
    "WHERE id IN (SELECT id FROM jobs WHERE status = 'queued' ORDER BY created_at_ms, id "
    "LIMIT ?1 FOR UPDATE SKIP LOCKED) RETURNING " CR_JOB_COLUMNS;
// ?1 now: owned running jobs whose lease expired; by the index jobs_by_lease.
inline constexpr const char* kSelectExpiredSql =
    "SELECT " CR_JOB_COLUMNS
    " FROM jobs WHERE status = 'running' AND lease_expires_at_ms < ?1 AND owner <> '' "
    "ORDER BY lease_expires_at_ms, id";
inline constexpr const char* kSkipLockedSuffix = " FOR UPDATE SKIP LOCKED";
// ?1 node, ?2 id, ?3 new expiry.
inline constexpr const char* kRenewLeaseSql =
    "UPDATE jobs SET lease_expires_at_ms = ?3 WHERE id = ?2 AND owner = ?1 AND status = 'running'";
// List: ?1 tenant, ?2 status, ?3/?4 cursor (created_at_ms, id), ?5 limit.
// One fixed text per combination of filters, so that each uses the index.
#define CR_LIST_PREFIX "SELECT " CR_LIST_COLUMNS " FROM jobs WHERE tenant = ?1"
#define CR_LIST_SUFFIX " ORDER BY created_at_ms DESC, id DESC LIMIT ?5"
inline constexpr const char* kListSql = CR_LIST_PREFIX CR_LIST_SUFFIX;
inline constexpr const char* kListByStatusSql = CR_LIST_PREFIX " AND status = ?2" CR_LIST_SUFFIX;
inline constexpr const char* kListAfterSql =
    CR_LIST_PREFIX " AND (created_at_ms, id) < (?3, ?4)" CR_LIST_SUFFIX;
inline constexpr const char* kListByStatusAfterSql =
    CR_LIST_PREFIX " AND status = ?2 AND (created_at_ms, id) < (?3, ?4)" CR_LIST_SUFFIX;
inline constexpr const char* kNonTerminalSql = "SELECT " CR_JOB_COLUMNS
                                               " FROM jobs WHERE status IN ('queued', 'running') "
                                               "ORDER BY created_at_ms ASC, id ASC";
#define CR_PURGE_WHERE " WHERE finished_at_ms < ?1 AND status NOT IN ('queued', 'running')"
inline constexpr const char* kSelectPurgeSql = "SELECT id FROM jobs" CR_PURGE_WHERE;
inline constexpr const char* kDeletePurgeSql = "DELETE FROM jobs" CR_PURGE_WHERE;

// A tenant's footprint (JobStore::TenantFootprint, PurgeBeyond): ?1
// tenant. Its sums, as the triggers of migration 8 keep them (no row: a
// tenant with no terminal job yet).
inline constexpr const char* kTenantFootprintSql =
    "SELECT artifact_bytes, output_bytes, jobs FROM tenant_footprints WHERE tenant = ?1";
// Up to ?4 of its terminal jobs after (?2 finished_at_ms, ?3 id), oldest
// first, by the index jobs_footprint (its WHERE repeated word for word, so
// that SQLite uses it).
inline constexpr const char* kOldestFinishedSql =
    "SELECT id, artifact_bytes, output_bytes, finished_at_ms FROM jobs WHERE tenant = ?1 AND "
    "status NOT IN ('queued', 'running') AND (finished_at_ms, id) > (CAST(?2 AS BIGINT), ?3) "
    "ORDER BY finished_at_ms, id LIMIT CAST(?4 AS BIGINT)";
// ?1 id, if it is (still) terminal.
inline constexpr const char* kDeleteFinishedSql =
    "DELETE FROM jobs WHERE id = ?1 AND status NOT IN ('queued', 'running')";

// The result cache (both backends).
inline constexpr const char* kCacheGetSql =
    "SELECT result_json FROM cache WHERE key = ?1 AND expires_at_ms > ?2";
inline constexpr const char* kCachePutSql =
    "INSERT INTO cache (key, result_json, expires_at_ms) VALUES (?1, ?2, ?3) "
    "ON CONFLICT (key) DO UPDATE SET result_json = excluded.result_json, "
    "expires_at_ms = excluded.expires_at_ms";
inline constexpr const char* kCachePurgeSql = "DELETE FROM cache WHERE expires_at_ms <= ?1";

#undef CR_JOB_COLUMNS
#undef CR_LIST_COLUMNS
#undef CR_LIST_PREFIX
#undef CR_LIST_SUFFIX
#undef CR_PURGE_WHERE

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_JOB_QUERIES_H_
