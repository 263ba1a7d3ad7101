// Job rows of a PostgreSQL result, read with the shared row codec
// (job_row_codec.h). Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_POSTGRES_PG_ROWS_H_
#define CODERUNNER_SRC_STORE_POSTGRES_PG_ROWS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"
#include "job_row_codec.h"
#include "pg_connection.h"

namespace coderunner::store {

// Row `row` of a PgResult, as ReadJobFrom reads it. Borrows `result`.
struct PgRow {
  const PgResult& result;
  int row;
  std::string Text(int column) const { return result.Text(row, column); }
  int64_t Int(int column) const { return result.Int(row, column); }
};

// Every row of `result` (columns in JobColumn order) as a job; failures as
// ReadJobFrom.
inline StatusOr<std::vector<store::JobRecord>> ReadPgJobs(const PgResult& result) {
  std::vector<store::JobRecord> jobs;
  jobs.reserve(static_cast<size_t>(result.rows()));
  for (int row = 0; row < result.rows(); ++row) {
    CR_ASSIGN_OR_RETURN(store::JobRecord job, ReadJobFrom(PgRow{result, row}));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_POSTGRES_PG_ROWS_H_
