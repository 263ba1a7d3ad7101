#include "sqlite_transaction.h"

#include <sqlite3.h>

#include "sqlite_statement.h"

namespace coderunner::store {

Transaction::~Transaction() {
  if (open_ && sqlite3_get_autocommit(db_) == 0) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

Status Transaction::Begin() {
  CR_RETURN_IF_ERROR(Exec(db_, "BEGIN IMMEDIATE", "begin transaction"));
  open_ = true;
  return OkStatus();
}

Status Transaction::Commit() {
  CR_RETURN_IF_ERROR(Exec(db_, "COMMIT", "commit"));
  open_ = false;
  return OkStatus();
}

}  // namespace coderunner::store
