// The backend list of the contract suite (job_store_contract.h) in a build
// without the fleet: sqlite alone.
#include <vector>

#include "job_store_contract.h"

namespace coderunner::store {

std::vector<StoreBackend> ContractBackends() { return {SqliteBackend()}; }

}  // namespace coderunner::store
