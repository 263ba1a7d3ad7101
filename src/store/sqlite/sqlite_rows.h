// Job rows of a SQLite statement, bound and read with the shared row codec
// (job_row_codec.h). Internal to src/store/sqlite.
#ifndef CODERUNNER_SRC_STORE_SQLITE_SQLITE_ROWS_H_
#define CODERUNNER_SRC_STORE_SQLITE_SQLITE_ROWS_H_

#include <sqlite3.h>

#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"
#include "sqlite_statement.h"

namespace coderunner::store {

// BindJobTo on a SQLite insert. Binding failures surface at the
// statement's Step. Every value is copied into the statement.
void BindJob(ScopedStatement& insert, const store::JobRecord& job, std::string_view request_json,
             std::string_view callback_url, std::string_view transitions_json);

// ReadJobFrom the current row of SQLite `stmt`.
StatusOr<store::JobRecord> ReadJob(sqlite3_stmt* stmt);

// Steps `stmt` to its end and reads every row as a job; step failures as
// ScopedStatement::Step with `what` as context, rows as ReadJob.
StatusOr<std::vector<store::JobRecord>> ReadJobs(ScopedStatement& stmt, std::string_view what);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_SQLITE_ROWS_H_
