// QueryInt: one value of a one-row query on a PostgreSQL database, read on
// a connection of its own (outside the store or notices under test), for
// the PostgreSQL unit tests' assertions on server state.
#ifndef CODERUNNER_TESTS_UNIT_STORE_PG_QUERY_INT_H_
#define CODERUNNER_TESTS_UNIT_STORE_PG_QUERY_INT_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "store/postgres/pg_connection.h"

namespace coderunner::store {

// The integer in row 0, column 0 of `sql` on `conninfo`; -1, with a test
// failure, if connecting or the query fails.
inline int64_t QueryInt(const std::string& conninfo, const std::string& sql) {
  auto conn = PgConnection::Connect(conninfo, "", 2000);
  if (!conn.ok()) {
    ADD_FAILURE() << conn.status().message();
    return -1;
  }
  auto result = (*conn)->Exec(sql, {}, "test query");
  if (!result.ok()) {
    ADD_FAILURE() << result.status().message();
    return -1;
  }
  return result->Int(0, 0);
}

}  // namespace coderunner::store

#endif  // CODERUNNER_TESTS_UNIT_STORE_PG_QUERY_INT_H_
