// What the integration tests on a PostgreSQL job store share: reading the
// database over libpq and the store: section of a node's config (and
// job_requests.h: submitting and waiting through a node's HTTP API).
#ifndef CODERUNNER_TESTS_INTEGRATION_PG_SUPPORT_H_
#define CODERUNNER_TESTS_INTEGRATION_PG_SUPPORT_H_

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "job_requests.h"
#include "pg/temp_postgres.h"
#include "server_process.h"

namespace coderunner::testing {

using Rows = std::vector<std::vector<std::string>>;

// The rows of `sql` (no parameters) on `conninfo`, each as its columns'
// text; empty, with a test failure, if the query fails.
Rows Query(const std::string& conninfo, const std::string& sql);
// Rows of the jobs table by status.
std::map<std::string, int> CountByStatus(const std::string& conninfo);
// The database a TempPostgres conninfo names (its last key is dbname=).
std::string DbName(const std::string& conninfo);
// Sessions other than the asking one on `conninfo`'s database, counted
// from the cluster's postgres database.
int SessionsOn(const TempPostgres& pg, const std::string& conninfo);
// The store: section for `conninfo` (plus `extra` keys, ", k: v" each).
std::string StoreYaml(const std::string& conninfo, const std::string& extra = "");
// A test with a throwaway PostgreSQL cluster of its own (TempPostgres::
// Start, its cost printed as a FIGURE) and one database on it, `conninfo_`,
// against the engine under test.
class PgClusterTest : public ::testing::Test {
 protected:
  void SetUp() override;

  std::unique_ptr<TempPostgres> pg_;
  std::string conninfo_;
};

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_PG_SUPPORT_H_
