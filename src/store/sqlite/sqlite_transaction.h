// Transaction: BEGIN IMMEDIATE ... COMMIT on the job store's connection.
// Internal to src/store.
#ifndef CODERUNNER_SRC_STORE_SQLITE_SQLITE_TRANSACTION_H_
#define CODERUNNER_SRC_STORE_SQLITE_SQLITE_TRANSACTION_H_

#include "coderunner/common/status.h"

struct sqlite3;

namespace coderunner::store {

// BEGIN IMMEDIATE ... COMMIT; rolled back when destroyed uncommitted.
// IMMEDIATE takes the write lock up front, so the read-then-write in a
// transaction is atomic even against another process on the same file.
// Borrows `db`, which must outlive it. Not thread-safe (the store's mutex
// serializes the connection).
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  // Begins the transaction; failure (e.g. the lock held past the busy
  // timeout) as SqliteError.
  Status Begin();
  // Commits it; failure as SqliteError (the destructor then rolls back).
  Status Commit();

 private:
  sqlite3* db_;
  bool open_ = false;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_SQLITE_SQLITE_TRANSACTION_H_
