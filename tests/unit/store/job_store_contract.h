// The JobStore contract suite: every JobStore implementation must pass the
// TEST_Ps of tests/unit/store/job_store_*contract_test.cc, and the
// contracts of the other parts it keeps (store_parts.h) those of their
// *_contract_test.cc. A backend is added by appending a StoreBackend to
// ContractBackends() (and to FleetBackends() if it keeps every part).
#ifndef CODERUNNER_TESTS_UNIT_STORE_JOB_STORE_CONTRACT_H_
#define CODERUNNER_TESTS_UNIT_STORE_JOB_STORE_CONTRACT_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_store.h"
#include "coderunner/store/store_parts.h"

namespace coderunner::store {

// Opens a JobStore over the data of an already opened one, with `redactor`
// (may be null), as its parts (store_parts.h).
using StoreOpener = std::function<StatusOr<StoreParts>(RequestRedactor)>;

// One fresh, isolated store of a backend.
struct OpenedStore {
  // Owns the backing data (sqlite: the temporary directory; a server: the
  // database) and removes it when released. Declared first so that it is
  // released last, after `parts`; a test must destroy the stores it got
  // from `reopen` before the OpenedStore.
  std::shared_ptr<void> backing;
  // The store (parts.jobs), empty, and the parts its backend keeps.
  StoreParts parts;
  // Opens another store over the same data (sqlite: the same path; a
  // server: the same conninfo). While `parts.jobs` is open it is a second
  // connection (another node); once it is reset it is a restart. Null if
  // the backend cannot reopen: the tests that need it are skipped.
  StoreOpener reopen;
};

struct StoreBackend {
  std::string name;  // "sqlite", "postgres": the suffix of every TEST_P's name.
  // Opens a fresh, empty, isolated store with `redactor` (may be null).
  // Each call is a new store (sqlite: a new temporary file).
  std::function<StatusOr<OpenedStore>(RequestRedactor)> open;
};

// sqlite: a new database file in a new temporary directory
// (job_store_contract.cc).
StoreBackend SqliteBackend();
// postgres: a new database of SharedPostgres() (postgres_contract_backend.cc,
// built with the fleet only).
StoreBackend PostgresBackend();

// The backends the contract suite runs over: sqlite in unit_tests
// (sqlite_contract_backends.cc), postgres in fleet_unit_tests
// (postgres_contract_backend.cc, built with the fleet only).
std::vector<StoreBackend> ContractBackends();
// The backends that keep the fleet's parts too (bounded, rate_buckets,
// sandbox_owners): postgres. Built with the fleet only.
std::vector<StoreBackend> FleetBackends();

// Names a TEST_P instance after its backend.
std::string BackendName(const ::testing::TestParamInfo<StoreBackend>& info);

// So that gtest prints a backend by its name.
inline void PrintTo(const StoreBackend& backend, std::ostream* os) { *os << backend.name; }

inline constexpr JobStatus kTerminalStatuses[] = {JobStatus::kSucceeded, JobStatus::kFailed,
                                                  JobStatus::kTimeout,   JobStatus::kOom,
                                                  JobStatus::kCancelled, JobStatus::kError};
inline constexpr JobStatus kAllStatuses[] = {
    JobStatus::kQueued,  JobStatus::kRunning, JobStatus::kSucceeded, JobStatus::kFailed,
    JobStatus::kTimeout, JobStatus::kOom,     JobStatus::kCancelled, JobStatus::kError};

inline constexpr const char* kRequestJson = R"json({"code":"print(1)"})json";

// A queued job as the API would insert it.
JobRecord MakeJob(const std::string& id, int64_t created_at_ms,
                  const std::string& tenant = "default");

// Expects `got` to hold `want`'s transitions, in order.
void ExpectSameTransitions(const std::vector<store::Transition>& got,
                           const std::vector<store::Transition>& want);

// A fresh store of the backend under test in store_, called through the
// interface.
class JobStoreContractFixture : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Opens a fresh store of this backend with `redactor` into store_,
  // dropping the previous one and its data.
  void OpenFresh(RequestRedactor redactor);
  // Another store over store_'s data, without a redactor (see
  // OpenedStore::reopen). FailedPrecondition when the backend cannot reopen
  // (!CanReopen(): a test that needs it skips). The caller owns the store
  // and destroys it before TearDown; Parts() knows its parts.
  StatusOr<std::unique_ptr<JobStore>> OpenAgain();
  bool CanReopen() const { return static_cast<bool>(reopen_); }
  // The parts of `store` (default store_), one this fixture opened: its
  // part pointers (jobs is empty: the store is store_ or OpenAgain's); all
  // null for a store it did not open.
  const StoreParts& Parts(const JobStore* store = nullptr) const;

  void Insert(std::vector<JobRecord> jobs);
  void MoveTo(const std::string& id, JobStatus to, int64_t at_ms);
  JobRecord MustGet(const std::string& id);
  std::vector<std::string> ListIds(ListFilter filter);

  // Released in reverse order: the stores, then the data.
  std::shared_ptr<void> backing_;
  StoreOpener reopen_;
  std::unique_ptr<JobStore> store_;
  // The part pointers of every store opened (jobs moved out), by store.
  std::map<const JobStore*, StoreParts> parts_;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_TESTS_UNIT_STORE_JOB_STORE_CONTRACT_H_
