#include "store_opening.h"

#include <spdlog/spdlog.h>

#include <string>
#include <utility>

#include "coderunner/jobs/request_redaction.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#if CODERUNNER_FLEET
#include "coderunner/store/postgres/pg_job_notices.h"
#include "coderunner/store/postgres/pg_job_store.h"
#endif

namespace coderunner::service {
namespace {

#if CODERUNNER_FLEET
// `s` under "store.url: ". PgJobStore's messages never hold the password
// (it is masked where libpq's error is read), so nothing is masked here.
Status StoreUrlError(const Status& s) {
  return Status(s.code(), "store.url: " + s.message(), s.reason());
}

// The PgStoreOptions of store.*, the password read from the environment.
StatusOr<store::PgStoreOptions> PgOptionsOf(const config::StoreConfig& sc, const EnvLookup& env) {
  store::PgStoreOptions options;
  options.conninfo = sc.url;
  options.max_connections = sc.max_connections;
  options.connect_timeout_ms = sc.connect_timeout_ms;
  options.call_timeout_ms = sc.call_timeout_ms;
  if (!sc.password_env.empty()) {
    const char* password = env(sc.password_env.c_str());
    if (password == nullptr) {
      return FailedPreconditionError(
          "store.password_env: the environment variable " + sc.password_env + " is not set",
          kReasonStorePasswordUnset);
    }
    options.password = password;
  }
  return options;
}

StatusOr<store::StoreParts> OpenPostgres(const config::StoreConfig& sc, const EnvLookup& env) {
  CR_ASSIGN_OR_RETURN(store::PgStoreOptions options, PgOptionsOf(sc, env));
  auto opened = store::PgJobStore::Open(options, jobs::RedactStoredRequest);
  if (!opened.ok()) return StoreUrlError(opened.status());
  spdlog::info("job store: PostgreSQL ({} connections at most)", sc.max_connections);
  return store::PartsOf(std::move(*opened));
}

StatusOr<std::unique_ptr<store::JobNotices>> OpenPostgresNotices(const config::StoreConfig& sc,
                                                                 const EnvLookup& env) {
  CR_ASSIGN_OR_RETURN(store::PgStoreOptions options, PgOptionsOf(sc, env));
  auto opened = store::PgJobNotices::Open(options);
  if (!opened.ok()) return StoreUrlError(opened.status());
  return std::unique_ptr<store::JobNotices>(std::move(*opened));
}
#else
Status FleetNotBuilt() {
  return FailedPreconditionError(
      "store.kind: postgres needs the fleet, which this build leaves out "
      "(CODERUNNER_FLEET=OFF); use store.kind sqlite",
      kReasonFleetNotBuilt);
}

StatusOr<store::StoreParts> OpenPostgres(const config::StoreConfig&, const EnvLookup&) {
  return FleetNotBuilt();
}

StatusOr<std::unique_ptr<store::JobNotices>> OpenPostgresNotices(const config::StoreConfig&,
                                                                 const EnvLookup&) {
  return FleetNotBuilt();
}
#endif  // CODERUNNER_FLEET

}  // namespace

StatusOr<store::StoreParts> OpenConfiguredStore(const config::Config& cfg, const EnvLookup& env) {
  if (cfg.store.kind == "postgres") return OpenPostgres(cfg.store, env);
  // A finished job's stored request keeps nothing that looks secret.
  auto sqlite = store::SqliteJobStore::Open(cfg.data_dir + "/jobs.db", jobs::RedactStoredRequest);
  if (!sqlite.ok()) return sqlite.status();
  return store::PartsOf(std::move(*sqlite));
}

StatusOr<std::unique_ptr<store::JobNotices>> OpenConfiguredNotices(const config::Config& cfg,
                                                                   const EnvLookup& env) {
  if (cfg.store.kind != "postgres") return std::unique_ptr<store::JobNotices>();
  return OpenPostgresNotices(cfg.store, env);
}

}  // namespace coderunner::service
