// queue_bench (issue 19, "queue ceiling"): claim -> complete cycles per
// second that one PostgreSQL sustains, the store driven directly (no engine,
// no HTTP) from several processes with several workers each, as the nodes of
// a fleet would; an in-run SQLite baseline (one process, its threads) for the
// ratio. Starts its own PostgreSQL 15 cluster (fsync and synchronous_commit
// on, as in production) over a Unix socket. Checks that every seeded job
// ended succeeded exactly once; exits 1 otherwise, 2 on a setup failure.
//
//   queue_bench [--processes 4] [--workers 4] [--jobs 20000] [--sqlite-jobs 5000]
#include <libpq-fe.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/store/postgres/pg_job_store.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "pg/temp_postgres.h"
#include "queue_drive.h"

namespace bench {
namespace {

using coderunner::store::PgJobStore;
using coderunner::store::PgStoreOptions;
using coderunner::testing::PgDurability;
using coderunner::testing::TempPostgres;

// Issue 19: the target, and one node's rate of jobs (for the fleet size).
constexpr double kTargetCyclesPerS = 2000;
constexpr double kJobsPerSPerNode = 12;

struct Options {
  int processes = 4;
  int workers = 4;
  int jobs = 20000;                 // Seeded per PostgreSQL row.
  std::vector<std::string> pg_set;  // --pg-set name=value, for diagnosis.
  int sqlite_jobs = 5000;  // Seeded for the SQLite row (a commit is an fsync: ~250/s here).
};

struct Row {
  std::string name;
  Figures figures;
  int64_t failures = 0;
  std::string error;  // "" when every job ended succeeded once and no call failed.
};

// The rows of `sql`, fields joined by `field_sep`, rows by `row_sep`; ""
// for a command; "(error)" if it failed.
std::string Query(const std::string& conninfo, const std::string& sql, const char* field_sep = "=",
                  const char* row_sep = ", ") {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::string out;
  if (PQstatus(conn) != CONNECTION_OK) {
    out = std::string("(connect: ") + PQerrorMessage(conn) + ")";
  } else {
    PGresult* res = PQexec(conn, sql.c_str());
    const bool rows = PQresultStatus(res) == PGRES_TUPLES_OK;
    if (!rows && PQresultStatus(res) != PGRES_COMMAND_OK) {
      out = std::string("(") + PQerrorMessage(conn) + ")";
    }
    for (int i = 0; rows && i < PQntuples(res); ++i) {
      if (i > 0) out += row_sep;
      for (int f = 0; f < PQnfields(res); ++f) {
        out += std::string(f > 0 ? field_sep : "") + PQgetvalue(res, i, f);
      }
    }
    PQclear(res);
  }
  PQfinish(conn);
  return out;
}

// --pg-set name=value (diagnosis): ALTER SYSTEM SET each, then a restart,
// so that any setting applies (shared_preload_libraries too). "" or why not.
std::string ApplyPgSettings(TempPostgres& pg, const std::vector<std::string>& sets) {
  if (sets.empty()) return "";
  for (const std::string& set : sets) {
    const size_t eq = set.find('=');
    if (eq == std::string::npos) return "--pg-set wants name=value, not " + set;
    std::string error = Query(
        pg.Conninfo(), "ALTER SYSTEM SET " + set.substr(0, eq) + " = '" + set.substr(eq + 1) + "'");
    if (!error.empty()) return error;
  }
  auto stopped = pg.Stop();
  auto started = stopped.ok() ? pg.StartAgain() : stopped;
  if (!started.ok()) return started.message();
  (void)Query(pg.Conninfo(), "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  return "";
}

// With --pg-set shared_preload_libraries=pg_stat_statements: the statements
// that took the most time in all, with their calls and mean ms.
void PrintTopStatements(TempPostgres& pg) {
  const std::string top = Query(
      pg.Conninfo(),
      "SELECT lpad(calls::text, 8), lpad(round((total_exec_time / calls)::numeric, 3)::text, 8), "
      "left(regexp_replace(query, '\\s+', ' ', 'g'), 110) FROM pg_stat_statements "
      "ORDER BY total_exec_time DESC LIMIT 10",
      "  ", "\n    ");
  if (top.empty() || top[0] == '(') return;
  printf("  pg_stat_statements, most time first (calls, mean ms, statement):\n    %s\n",
         top.c_str());
}

PgStoreOptions StoreOptions(const std::string& conninfo, int connections) {
  PgStoreOptions o;
  o.conninfo = conninfo;
  o.max_connections = connections;
  o.connect_timeout_ms = 30000;
  return o;
}

// Runs `workers` threads of Drive on `store`; their tallies, merged.
Tally DriveThreads(coderunner::store::JobStore& store, const std::string& node, int workers,
                   int batch) {
  std::vector<Tally> tallies(workers);
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] { Drive(store, node, batch, tallies[w]); });
  }
  for (auto& t : threads) t.join();
  Tally all;
  for (const Tally& t : tallies) all.Merge(t);
  return all;
}

// A forked driver: opens its own PgJobStore as node bench-<p>, says ready
// on `ready`, starts when `go` closes, writes its tally to `out`. Never
// returns.
[[noreturn]] void DriverProcess(const std::string& conninfo, const Options& o, int p, int batch,
                                int ready, int go, const std::string& out) {
  auto store = PgJobStore::Open(StoreOptions(conninfo, o.workers));
  char byte = store.ok() ? '1' : '0';
  if (!store.ok()) fprintf(stderr, "driver %d: %s\n", p, store.status().message().c_str());
  if (write(ready, &byte, 1) != 1 || !store.ok()) _exit(2);
  while (read(go, &byte, 1) > 0) {
  }
  Tally tally = DriveThreads(**store, "bench-" + std::to_string(p), o.workers, batch);
  FILE* f = fopen(out.c_str(), "wb");
  bool ok = f != nullptr && tally.Write(f);
  if (f != nullptr) ok = fclose(f) == 0 && ok;
  _exit(ok ? 0 : 2);
}

// Forks the drivers, starts them together once all are connected, waits,
// and merges their tallies. "" or what failed.
std::string RunDrivers(const std::string& conninfo, const Options& o, int batch, Tally& all) {
  char dir_pattern[] = "/tmp/queue-bench-XXXXXX";
  if (mkdtemp(dir_pattern) == nullptr) return "mkdtemp failed";
  const std::string dir = dir_pattern;
  int ready[2], go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) return "pipe failed";
  fflush(stdout);
  std::vector<pid_t> pids;
  for (int p = 0; p < o.processes; ++p) {
    pid_t pid = fork();
    if (pid == 0) {
      close(ready[0]);
      close(go[1]);
      DriverProcess(conninfo, o, p, batch, ready[1], go[0], dir + "/" + std::to_string(p));
    }
    if (pid > 0) pids.push_back(pid);
  }
  close(ready[1]);
  close(go[0]);
  int connected = 0;
  char byte = 0;
  while (connected < o.processes && read(ready[0], &byte, 1) == 1 && byte == '1') ++connected;
  close(go[1]);  // Go.
  close(ready[0]);
  std::string error = connected == o.processes ? "" : "a driver could not connect";
  for (size_t p = 0; p < pids.size(); ++p) {
    int status = 0;
    waitpid(pids[p], &status, 0);
    FILE* f = fopen((dir + "/" + std::to_string(p)).c_str(), "rb");
    Tally t;
    if (f == nullptr || !t.Read(f) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      error = "driver " + std::to_string(p) + " failed";
    }
    if (f != nullptr) fclose(f);
    all.Merge(t);
  }
  if (static_cast<int>(pids.size()) != o.processes) error = "fork failed";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return error;
}

// One PostgreSQL row: a fresh database, seeded, drained by the drivers
// with Claim(max = batch), then checked.
Row PgRow(TempPostgres& pg, const Options& o, int batch, uint32_t tag) {
  Row row{"postgres, Claim(max=" + std::to_string(batch) + ")", {}, 0, ""};
  auto conninfo = pg.CreateDatabase();
  if (!conninfo.ok()) return Row{row.name, {}, 0, conninfo.status().message()};
  {
    auto store = PgJobStore::Open(StoreOptions(*conninfo, 2));
    if (!store.ok()) return Row{row.name, {}, 0, store.status().message()};
    row.error = Seed(**store, tag, o.jobs, 1);
  }  // Closed before the fork: the drivers open their own.
  Tally tally;
  if (row.error.empty()) row.error = RunDrivers(*conninfo, o, batch, tally);
  row.figures = Summarize(tally);
  row.failures = tally.failures;
  if (row.error.empty() && tally.failures > 0) row.error = tally.first_error;
  if (row.error.empty()) {
    auto store = PgJobStore::Open(StoreOptions(*conninfo, 2));
    row.error =
        store.ok() ? CheckOnceEach(**store, SeededIds(tag, o.jobs)) : store.status().message();
  }
  const std::string by_status =
      Query(*conninfo, "SELECT status, count(*) FROM jobs GROUP BY status ORDER BY status");
  const std::string exact = Query(
      *conninfo,
      "SELECT count(*) FROM jobs WHERE jsonb_path_query_array(transitions::jsonb, '$[*].status') "
      "= '[\"queued\", \"running\", \"succeeded\"]'::jsonb");
  printf("  %s: jobs by status: %s; with exactly the transitions queued, running, succeeded: %s\n",
         row.name.c_str(), by_status.c_str(), exact.c_str());
  if (row.error.empty() &&
      (by_status != "succeeded=" + std::to_string(o.jobs) || exact != std::to_string(o.jobs))) {
    row.error = "the jobs table does not hold each job succeeded once";
  }
  (void)pg.DropDatabase(*conninfo);
  return row;
}

// The SQLite baseline: one process, `workers` threads, Claim(max=1).
Row SqliteRow(const Options& o, uint32_t tag) {
  const int jobs = o.sqlite_jobs;
  Row row{"sqlite, 1 process, Claim(max=1)", {}, 0, ""};
  char dir_pattern[] = "/tmp/queue-bench-sqlite-XXXXXX";
  if (mkdtemp(dir_pattern) == nullptr) return Row{row.name, {}, 0, "mkdtemp failed"};
  {
    auto store = coderunner::store::SqliteJobStore::Open(std::string(dir_pattern) + "/jobs.db");
    if (!store.ok()) return Row{row.name, {}, 0, store.status().message()};
    row.error = Seed(**store, tag, jobs, 1);
    Tally tally;
    if (row.error.empty()) tally = DriveThreads(**store, "bench-sqlite", o.workers, 1);
    row.figures = Summarize(tally);
    row.failures = tally.failures;
    if (row.error.empty() && tally.failures > 0) row.error = tally.first_error;
    if (row.error.empty()) row.error = CheckOnceEach(**store, SeededIds(tag, jobs));
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_pattern, ec);
  return row;
}

void PrintRow(const Row& r) {
  const Figures& f = r.figures;
  printf("  %-32s %9.0f %9.2f %8.2f %9.2f %8.2f %8.0f", r.name.c_str(), f.cycles_per_s, f.claim_p50,
         f.claim_p99, f.complete_p50, f.complete_p99, f.cycles_per_s / kJobsPerSPerNode);
  if (r.failures > 0) printf("   (%lld calls failed)", static_cast<long long>(r.failures));
  printf("\n");
}

bool ParseArgs(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int v = std::atoi(argv[i + 1]);
    if (flag == "--processes") {
      o.processes = v;
    } else if (flag == "--workers") {
      o.workers = v;
    } else if (flag == "--jobs") {
      o.jobs = v;
    } else if (flag == "--sqlite-jobs") {
      o.sqlite_jobs = v;
    } else if (flag == "--pg-set") {
      o.pg_set.push_back(argv[i + 1]);
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && o.processes >= 1 && o.workers >= 1 && o.jobs >= 100 &&
         o.sqlite_jobs >= 100;
}

// Prints the rows, their ratio and the verdict; false if a row failed.
bool Report(const Options& o, const Row& lite, const Row& one, const Row& eight) {
  printf("  %-32s %9s %9s %8s %9s %8s %8s\n", "row", "cycles/s", "claim50", "claim99", "compl50",
         "compl99", "nodes");
  for (const Row* r : {&lite, &one, &eight}) PrintRow(*r);
  const double base = lite.figures.cycles_per_s;
  if (base > 0) {
    printf("  postgres / sqlite cycles/s: %.2fx with Claim(max=1), %.2fx with Claim(max=8)\n",
           one.figures.cycles_per_s / base, eight.figures.cycles_per_s / base);
  }
  bool ok = true;
  for (const Row* r : {&lite, &one, &eight}) {
    if (r->error.empty()) continue;
    printf("  EXACTLY-ONCE FAILED: %s: %s\n", r->name.c_str(), r->error.c_str());
    ok = false;
  }
  if (ok)
    printf(
        "  exactly-once: ok, each of the %d (sqlite) and 2 x %d (postgres) jobs ended succeeded "
        "once\n",
        o.sqlite_jobs, o.jobs);
  const double rate = one.figures.cycles_per_s;
  printf(
      "  queue ceiling: %.0f cycles/s with Claim(max=1) (%.0f with max=8), %.0f nodes at %.0f "
      "jobs/s each: %s %.0f/s\n",
      rate, eight.figures.cycles_per_s, rate / kJobsPerSPerNode, kJobsPerSPerNode,
      rate >= kTargetCyclesPerS ? "ok, target" : "BELOW the target", kTargetCyclesPerS);
  return ok;
}

// The 1-minute load average (/proc/loadavg), "?" if unknown.
std::string LoadAverage() {
  FILE* f = fopen("/proc/loadavg", "r");
  char buf[32] = "?";
  if (f != nullptr) {
    if (fscanf(f, "%31s", buf) != 1) snprintf(buf, sizeof buf, "?");
    fclose(f);
  }
  return buf;
}

int Main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, o)) {
    fprintf(stderr,
            "usage: queue_bench [--processes N] [--workers N] [--jobs N] [--sqlite-jobs N] "
            "(N >= 100) [--pg-set name=value]...\n");
    return 2;
  }
  // The store's CREATE TABLE IF NOT EXISTS would print a NOTICE per connection.
  setenv("PGOPTIONS", "-c client_min_messages=warning", /*overwrite=*/0);
  auto pg = TempPostgres::Start(PgDurability::kDurable);
  if (!pg.ok()) {
    fprintf(stderr, "queue_bench: %s\n", pg.status().message().c_str());
    return 2;
  }
  if (std::string error = ApplyPgSettings(**pg, o.pg_set); !error.empty()) {
    fprintf(stderr, "queue_bench: %s\n", error.c_str());
    return 2;
  }
  const std::string settings =
      Query((*pg)->Conninfo(),
            "SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', "
            "'synchronous_commit', 'wal_sync_method', 'shared_buffers', 'full_page_writes', "
            "'shared_preload_libraries') AND setting <> '' "
            "ORDER BY name");
  printf(
      "\n== queue: claim -> complete cycles/s on one PostgreSQL over its Unix socket (%s), "
      "%d processes x %d workers, %d jobs per row (sqlite: %d), %u cores shared by the database "
      "and the drivers, load average %s at the start (cycles/s over the middle 80%% of "
      "completions; claim and complete ms: p50 p99; "
      "nodes at %.0f jobs/s each)\n",
      settings.c_str(), o.processes, o.workers, o.jobs, o.sqlite_jobs,
      std::thread::hardware_concurrency(), LoadAverage().c_str(), kJobsPerSPerNode);
  const Row lite = SqliteRow(o, 0xa0000001);
  const Row one = PgRow(**pg, o, 1, 0xb0000001);
  const Row eight = PgRow(**pg, o, 8, 0xb0000008);
  PrintTopStatements(**pg);
  return Report(o, lite, one, eight) ? 0 : 1;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) { return bench::Main(argc, argv); }
