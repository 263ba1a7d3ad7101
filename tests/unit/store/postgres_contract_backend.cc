// The contract suite's postgres backend (job_store_contract.h), and the
// backend lists of fleet_unit_tests: postgres (unit_tests runs sqlite).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/store/postgres/pg_job_store.h"
#include "job_store_contract.h"
#include "pg/temp_postgres.h"

namespace coderunner::store {
namespace {

// postgres: a new database on the shared test cluster, dropped with the
// last reference to `backing`.
StatusOr<OpenedStore> OpenPostgres(RequestRedactor redactor) {
  CR_ASSIGN_OR_RETURN(std::string conninfo, coderunner::testing::SharedPostgres().CreateDatabase());
  std::shared_ptr<void> backing(new std::string(conninfo), [](void* p) {
    auto* owned = static_cast<std::string*>(p);
    (void)coderunner::testing::SharedPostgres().DropDatabase(*owned);
    delete owned;
  });
  PgStoreOptions options;
  options.conninfo = conninfo;
  options.max_connections = 4;
  OpenedStore opened;
  CR_ASSIGN_OR_RETURN(std::unique_ptr<PgJobStore> store, PgJobStore::Open(options, redactor));
  opened.parts = PartsOf(std::move(store));
  opened.reopen = [options, backing](RequestRedactor r) -> StatusOr<StoreParts> {
    CR_ASSIGN_OR_RETURN(std::unique_ptr<PgJobStore> store, PgJobStore::Open(options, r));
    return PartsOf(std::move(store));
  };
  opened.backing = std::move(backing);
  return opened;
}

}  // namespace

StoreBackend PostgresBackend() { return {"postgres", OpenPostgres}; }

std::vector<StoreBackend> ContractBackends() { return {PostgresBackend()}; }

std::vector<StoreBackend> FleetBackends() { return {PostgresBackend()}; }

}  // namespace coderunner::store
