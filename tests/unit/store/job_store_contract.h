// The JobStore contract suite: every JobStore implementation must pass the
// TEST_Ps of tests/unit/store/job_store_*contract_test.cc. A backend is
// added by appending a StoreBackend to ContractBackends().
#ifndef CODERUNNER_TESTS_UNIT_STORE_JOB_STORE_CONTRACT_H_
#define CODERUNNER_TESTS_UNIT_STORE_JOB_STORE_CONTRACT_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/job_store.h"

namespace coderunner::store {

// Opens a JobStore over the data of an already opened one, with `redactor`
// (may be null).
using StoreOpener = std::function<StatusOr<std::unique_ptr<JobStore>>(RequestRedactor)>;

// One fresh, isolated store of a backend.
struct OpenedStore {
  // Owns the backing data (sqlite: the temporary directory; a server: the
  // database) and removes it when released. Declared first so that it is
  // released last, after `store`; a test must destroy the stores it got
  // from `reopen` before the OpenedStore.
  std::shared_ptr<void> backing;
  // The store, empty.
  std::unique_ptr<JobStore> store;
  // Opens another store over the same data (sqlite: the same path; a
  // server: the same conninfo). While `store` is open it is a second
  // connection (another node); once `store` is reset it is a restart. Null
  // if the backend cannot reopen: the tests that need it are skipped.
  StoreOpener reopen;
};

struct StoreBackend {
  std::string name;  // "sqlite", "postgres": the suffix of every TEST_P's name.
  // Opens a fresh, empty, isolated store with `redactor` (may be null).
  // Each call is a new store (sqlite: a new temporary file).
  std::function<StatusOr<OpenedStore>(RequestRedactor)> open;
};

// The backends the contract suite runs over: sqlite and postgres (a
// database of SharedPostgres()).
std::vector<StoreBackend> ContractBackends();

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
  // and destroys it before TearDown.
  StatusOr<std::unique_ptr<JobStore>> OpenAgain();
  bool CanReopen() const { return static_cast<bool>(reopen_); }

  void Insert(std::vector<JobRecord> jobs);
  void MoveTo(const std::string& id, JobStatus to, int64_t at_ms);
  JobRecord MustGet(const std::string& id);
  std::vector<std::string> ListIds(ListFilter filter);

  // Released in reverse order: the stores, then the data.
  std::shared_ptr<void> backing_;
  StoreOpener reopen_;
  std::unique_ptr<JobStore> store_;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_TESTS_UNIT_STORE_JOB_STORE_CONTRACT_H_
