#include "pg/temp_postgres.h"

#include <fcntl.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace coderunner::testing {
namespace {

constexpr const char* kPgBin = "/usr/lib/postgresql/15/bin/";
constexpr const char* kPgUser = "postgres";
constexpr int kPort = 5432;  // The socket is in the cluster's own dir: no clash.
constexpr const char* kReasonPgCluster = "pg_cluster";
constexpr const char* kDbnameKey = "dbname=";  // Last in a Conninfo.
constexpr const char* kEnvDir = "CODERUNNER_TEST_PG_DIR";

std::string DataDir(const std::string& dir) { return dir + "/data"; }

// Runs `argv` (a PostgreSQL binary and its arguments) as user postgres
// when root, appending its output to <dir>/ctl.log.
Status RunPg(const std::string& dir, std::vector<std::string> argv) {
  const std::string name = argv[0];
  if (geteuid() == 0) argv.insert(argv.begin(), {"runuser", "-u", kPgUser, "--"});
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  const std::string log = dir + "/ctl.log";
  pid_t pid = fork();
  if (pid < 0) return InternalError("fork failed", kReasonPgCluster);
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return InternalError(name + " failed; see " + log, kReasonPgCluster);
  }
  return OkStatus();
}

// Makes `dir` owned by user postgres, so the cluster can live in it.
Status GiveToPostgres(const std::string& dir) {
  if (geteuid() != 0) return OkStatus();
  const passwd* pw = getpwnam(kPgUser);
  if (pw == nullptr) return InternalError("no user postgres", kReasonPgCluster);
  if (chown(dir.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
    return InternalError("chown " + dir + " failed", kReasonPgCluster);
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<TempPostgres>> TempPostgres::Start(PgDurability durability) {
  std::string pattern = (std::filesystem::temp_directory_path() / "crpg.XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return InternalError("mkdtemp " + pattern + " failed", kReasonPgCluster);
  }
  std::unique_ptr<TempPostgres> pg(new TempPostgres(pattern, /*owns=*/true, durability));
  CR_RETURN_IF_ERROR(pg->InitAndStart());
  return pg;
}

StatusOr<std::unique_ptr<TempPostgres>> TempPostgres::Create(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path path = std::filesystem::absolute(dir, ec);
  if (std::filesystem::exists(path / "data" / "postmaster.pid", ec)) {
    (void)RunPg(path.string(), {std::string(kPgBin) + "pg_ctl", "-D", DataDir(path.string()), "-m",
                                "immediate", "-w", "stop"});
  }
  std::filesystem::remove_all(path, ec);
  if (!std::filesystem::create_directories(path, ec)) {
    return InternalError("cannot create " + path.string(), kReasonPgCluster);
  }
  std::unique_ptr<TempPostgres> pg(new TempPostgres(path.string(), /*owns=*/false));
  CR_RETURN_IF_ERROR(pg->InitAndStart());
  return pg;
}

StatusOr<std::unique_ptr<TempPostgres>> TempPostgres::Attach(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(DataDir(dir) + "/PG_VERSION", ec)) {
    return NotFoundError("no PostgreSQL cluster in " + dir, kReasonPgCluster);
  }
  return std::unique_ptr<TempPostgres>(new TempPostgres(dir, /*owns=*/false));
}

TempPostgres::~TempPostgres() {
  if (owns_) (void)Remove();
}

Status TempPostgres::InitAndStart() {
  CR_RETURN_IF_ERROR(GiveToPostgres(dir_));
  CR_RETURN_IF_ERROR(RunPg(dir_, {std::string(kPgBin) + "initdb", "-D", DataDir(dir_),
                                  "--auth=trust", "-U", kPgUser, "-E", "UTF8", "--no-sync"}));
  return StartAgain();
}

std::string TempPostgres::Conninfo(const std::string& dbname) const {
  return "host=" + dir_ + " port=" + std::to_string(kPort) + " user=" + kPgUser + " " + kDbnameKey +
         dbname;
}

StatusOr<std::string> TempPostgres::CreateDatabase() {
  static std::atomic<int> counter{0};
  const std::string name =
      "crtest_" + std::to_string(getpid()) + "_" + std::to_string(counter.fetch_add(1));
  CR_RETURN_IF_ERROR(AdminSql("CREATE DATABASE " + name));
  return Conninfo(name);
}

Status TempPostgres::DropDatabase(const std::string& conninfo) {
  const size_t at = conninfo.rfind(kDbnameKey);
  if (at == std::string::npos) return InvalidArgumentError("no dbname in " + conninfo);
  const std::string name = conninfo.substr(at + std::string(kDbnameKey).size());
  return AdminSql("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
}

Status TempPostgres::AdminSql(const std::string& sql) const {
  PGconn* conn = PQconnectdb(Conninfo().c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string error = PQerrorMessage(conn);
    PQfinish(conn);
    return UnavailableError("connect to " + dir_ + ": " + error, kReasonPgCluster);
  }
  PGresult* result = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
  std::string error = ok ? "" : PQresultErrorMessage(result);
  PQclear(result);
  PQfinish(conn);
  if (!ok) return InternalError(sql + ": " + error, kReasonPgCluster);
  return OkStatus();
}

Status TempPostgres::Stop() {
  return RunPg(dir_,
               {std::string(kPgBin) + "pg_ctl", "-D", DataDir(dir_), "-m", "fast", "-w", "stop"});
}

Status TempPostgres::StartAgain() {
  std::string options = "-c listen_addresses='' -c unix_socket_directories=" + dir_ +
                        " -c port=" + std::to_string(kPort) + " -c max_connections=200";
  if (durability_ == PgDurability::kFast) options += " -c fsync=off";
  return RunPg(dir_, {std::string(kPgBin) + "pg_ctl", "-D", DataDir(dir_), "-l",
                      dir_ + "/server.log", "-o", options, "-w", "-t", "60", "start"});
}

Status TempPostgres::Remove() {
  owns_ = false;
  Status stopped = RunPg(
      dir_, {std::string(kPgBin) + "pg_ctl", "-D", DataDir(dir_), "-m", "immediate", "-w", "stop"});
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
  return stopped;
}

TempPostgres& SharedPostgres() {
  static std::unique_ptr<TempPostgres> shared = [] {
    const char* dir = std::getenv(kEnvDir);
    StatusOr<std::unique_ptr<TempPostgres>> pg =
        dir != nullptr && *dir != '\0' ? TempPostgres::Attach(dir) : TempPostgres::Start();
    if (!pg.ok()) {
      std::fprintf(stderr, "SharedPostgres: %s\n", pg.status().message().c_str());
      std::abort();
    }
    return std::move(pg).value();
  }();
  return *shared;
}

}  // namespace coderunner::testing
