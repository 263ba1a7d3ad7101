#include "sqlite_rows.h"

#include <cstdint>
#include <string>
#include <utility>

#include "job_row_codec.h"

namespace coderunner::store {

void BindJob(ScopedStatement& insert, const store::JobRecord& job, std::string_view request_json,
             std::string_view callback_url, std::string_view transitions_json) {
  BindJobTo(insert, job, request_json, callback_url, transitions_json);
}

StatusOr<JobRecord> ReadJob(sqlite3_stmt* stmt) {
  struct SqliteRow {
    sqlite3_stmt* stmt;
    std::string Text(int column) const { return ColumnString(stmt, column); }
    int64_t Int(int column) const { return sqlite3_column_int64(stmt, column); }
  };
  return ReadJobFrom(SqliteRow{stmt});
}

StatusOr<std::vector<JobRecord>> ReadJobs(ScopedStatement& stmt, std::string_view what) {
  std::vector<JobRecord> jobs;
  while (true) {
    CR_ASSIGN_OR_RETURN(bool row, stmt.Step(what));
    if (!row) return jobs;
    CR_ASSIGN_OR_RETURN(JobRecord job, ReadJob(stmt.get()));
    jobs.push_back(std::move(job));
  }
}

}  // namespace coderunner::store
