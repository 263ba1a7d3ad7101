// SqliteJobStore's BoundedQueue::InsertWithin: count the queued jobs and
// insert in one transaction under the database's write lock.
#include <sqlite3.h>

#include <mutex>
#include <string>
#include <vector>

#include "coderunner/store/queue_bounds.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "job_queries.h"
#include "job_transition_rules.h"
#include "sqlite_rows.h"
#include "sqlite_statement.h"
#include "sqlite_transaction.h"
#include "store_errors.h"

namespace coderunner::store {
namespace {

Status DuplicateJob(const std::string& id) {
  return AlreadyExistsError("job " + id + " already exists", kReasonJobExists);
}

}  // namespace

Status SqliteJobStore::InsertWithin(const JobRecord& record, const QueueBounds& bounds) {
  CR_ASSIGN_OR_RETURN(std::vector<std::string> transitions, InsertTransitions({record}));
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(db_);  // BEGIN IMMEDIATE: the write lock before the count.
  CR_RETURN_IF_ERROR(txn.Begin());
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement count, statements_->Prepare(kCountQueuedSql));
    count.Bind(1, record.tenant);
    CR_ASSIGN_OR_RETURN(bool row, count.Step("count queued jobs"));
    if (!row) return InternalError("count queued jobs: no row", kReasonStoreError);
    CR_RETURN_IF_ERROR(CheckQueueBounds(sqlite3_column_int64(count.get(), 0),
                                        sqlite3_column_int64(count.get(), 1), bounds));
  }
  {
    CR_ASSIGN_OR_RETURN(ScopedStatement insert, statements_->Prepare(kInsertJobSql));
    StoredRequest request = RequestToInsert(record, redactor_);
    BindJob(insert, record, request.request_json, request.callback_url, transitions[0]);
    Status inserted = insert.Run("insert job " + record.id);
    if (!inserted.ok()) {
      if ((insert.last_rc() & 0xff) == SQLITE_CONSTRAINT) return DuplicateJob(record.id);
      return inserted;
    }
  }
  return txn.Commit();
}

}  // namespace coderunner::store
