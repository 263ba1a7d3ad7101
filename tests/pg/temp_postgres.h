// A throwaway PostgreSQL 15 cluster for tests: initdb'd in a temp dir,
// reached only over a Unix socket in that dir (no TCP), run as the
// `postgres` system user (initdb and postgres refuse root).
#ifndef CODERUNNER_TESTS_PG_TEMP_POSTGRES_H_
#define CODERUNNER_TESTS_PG_TEMP_POSTGRES_H_

#include <memory>
#include <string>

#include "coderunner/common/status.h"

namespace coderunner::testing {

// How a cluster commits. kFast (tests): fsync=off, a commit is not flushed
// to disk. kDurable (benchmarks): PostgreSQL's defaults, as in production
// (fsync=on, synchronous_commit=on): a commit waits for its WAL flush.
enum class PgDurability { kFast, kDurable };

class TempPostgres {
 public:
  // initdb + pg_ctl start in a new temp dir (socket in it, no TCP), as user
  // postgres, committing as `durability` says (also after StartAgain).
  // Owns the cluster: the destructor removes it. Internal ("pg_cluster") if
  // a step fails; the dir's ctl.log and server.log say why.
  static StatusOr<std::unique_ptr<TempPostgres>> Start(
      PgDurability durability = PgDurability::kFast);
  // initdb + start in `dir` (created, or emptied first), not owned: the
  // cluster outlives this object (the ctest fixture's setup).
  static StatusOr<std::unique_ptr<TempPostgres>> Create(const std::string& dir);
  // Attaches to a cluster another process started in `dir` (see the ctest
  // fixture); does not stop it. NotFound if `dir` holds no cluster.
  static StatusOr<std::unique_ptr<TempPostgres>> Attach(const std::string& dir);
  // pg_ctl stop -m immediate + rm -rf, if it owns the cluster.
  ~TempPostgres();
  TempPostgres(const TempPostgres&) = delete;
  TempPostgres& operator=(const TempPostgres&) = delete;

  // "host=<dir> port=<p> user=postgres dbname=<dbname>".
  std::string Conninfo(const std::string& dbname = "postgres") const;
  // A fresh, uniquely named database; returns its conninfo.
  StatusOr<std::string> CreateDatabase();
  // Drops the database of `conninfo` (one CreateDatabase returned),
  // closing its sessions first (WITH (FORCE)).
  Status DropDatabase(const std::string& conninfo);
  // pg_ctl stop -m fast (the database goes away until StartAgain).
  Status Stop();
  // Starts it again in the same dir.
  Status StartAgain();
  // Stops the cluster (-m immediate) and removes its dir, owned or not
  // (the ctest fixture's cleanup).
  Status Remove();

  const std::string& dir() const { return dir_; }

 private:
  TempPostgres(std::string dir, bool owns, PgDurability durability = PgDurability::kFast)
      : dir_(std::move(dir)), owns_(owns), durability_(durability) {}
  // Runs `sql` (no rows) on the cluster's postgres database.
  Status AdminSql(const std::string& sql) const;
  // initdb + start in dir_ (which exists and is empty).
  Status InitAndStart();

  std::string dir_;
  bool owns_;
  PgDurability durability_;
};

// The cluster of this ctest run (fixture "pg": env CODERUNNER_TEST_PG_DIR
// names its dir), else one started on first use for this process and
// stopped at exit. Aborts (with the reason on stderr) if neither works.
TempPostgres& SharedPostgres();

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_PG_TEMP_POSTGRES_H_
