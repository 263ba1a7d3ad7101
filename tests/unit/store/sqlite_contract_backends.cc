// The backend list of the contract suite (job_store_contract.h) in
// unit_tests: sqlite (fleet_unit_tests runs postgres).
#include <vector>

#include "job_store_contract.h"

namespace coderunner::store {

std::vector<StoreBackend> ContractBackends() { return {SqliteBackend()}; }

}  // namespace coderunner::store
