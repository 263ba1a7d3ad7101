// See pg_support.h.
#include "pg_support.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <filesystem>
#include <iostream>

namespace coderunner::testing {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The rows of `sql` (no parameters) on `conninfo`, each as its columns'
// text; empty, with a test failure, if the query fails.
Rows Query(const std::string& conninfo, const std::string& sql) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  Rows rows;
  if (PQstatus(conn) != CONNECTION_OK) {
    ADD_FAILURE() << "connect " << conninfo << ": " << PQerrorMessage(conn);
    PQfinish(conn);
    return rows;
  }
  PGresult* res = PQexec(conn, sql.c_str());
  if (PQresultStatus(res) != PGRES_TUPLES_OK) {
    ADD_FAILURE() << sql << ": " << PQerrorMessage(conn);
  } else {
    for (int r = 0; r < PQntuples(res); ++r) {
      rows.emplace_back();
      for (int c = 0; c < PQnfields(res); ++c) rows.back().push_back(PQgetvalue(res, r, c));
    }
  }
  PQclear(res);
  PQfinish(conn);
  return rows;
}

// Rows of the jobs table by status.
std::map<std::string, int> CountByStatus(const std::string& conninfo) {
  std::map<std::string, int> out;
  for (const auto& row : Query(conninfo, "SELECT status, count(*) FROM jobs GROUP BY status")) {
    out[row[0]] = std::stoi(row[1]);
  }
  return out;
}

// The database a TempPostgres conninfo names (its last key is dbname=).
std::string DbName(const std::string& conninfo) {
  return conninfo.substr(conninfo.rfind("dbname=") + 7);
}

// Sessions other than the asking one on `conninfo`'s database, counted
// from the cluster's postgres database.
int SessionsOn(const TempPostgres& pg, const std::string& conninfo) {
  Rows rows = Query(pg.Conninfo(), "SELECT count(*) FROM pg_stat_activity WHERE datname = '" +
                                       DbName(conninfo) + "'");
  return rows.empty() ? -1 : std::stoi(rows[0][0]);
}

// The store: section for `conninfo` (plus `extra` keys, ", k: v" each).
std::string StoreYaml(const std::string& conninfo, const std::string& extra) {
  return "store: {kind: postgres, url: \"" + conninfo + "\", connect_timeout_ms: 1000" + extra +
         "}\n";
}

void PgClusterTest::SetUp() {
  ASSERT_TRUE(std::filesystem::exists(EngineSocketUnderTest()))
      << "engine socket " << EngineSocketUnderTest() << " does not exist";
  auto started = Clock::now();
  auto pg = TempPostgres::Start();
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  pg_ = std::move(*pg);
  auto db = pg_->CreateDatabase();
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  conninfo_ = *db;
  std::cout << "[  FIGURE  ] temp_postgres_start_ms = "
            << std::chrono::duration_cast<milliseconds>(Clock::now() - started).count()
            << std::endl;
}

}  // namespace coderunner::testing
