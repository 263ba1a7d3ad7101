// SandboxOwners: which node of a fleet holds each sandbox, shared through
// the job store's database so that any node can tell where a sandbox lives
// (and forward a request for it there).
//
// A sandbox's container and files live on the one node that created it.
// That node places the sandbox here when it creates it and forgets it when
// it deletes it. The fleet's store implements it over its database
// (PgJobStore: StoreParts::sandbox_owners), table sandbox_owners; a single
// node holds every sandbox itself and needs none.
#ifndef CODERUNNER_STORE_SANDBOX_OWNERS_H_
#define CODERUNNER_STORE_SANDBOX_OWNERS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "coderunner/common/status.h"

namespace coderunner::store {

// PlaceSandbox got a placement it cannot store (an empty or over-long id,
// tenant or node). InvalidArgument.
inline constexpr const char* kReasonInvalidPlacement = "invalid_placement";

// Bound of SandboxPlacement's text fields, in bytes.
inline constexpr size_t kMaxPlacementFieldBytes = 128;

// Where one sandbox lives. Plain data.
struct SandboxPlacement {
  std::string id;          // The sandbox id ("sbx-..."); 1..kMaxPlacementFieldBytes bytes.
  std::string tenant;      // Its tenant; 1..kMaxPlacementFieldBytes bytes.
  std::string node;        // The node holding it (config `instance`); 1..kMax... bytes.
  int64_t created_ms = 0;  // When it was placed. ms since the epoch.
};

class SandboxOwners {
 public:
  virtual ~SandboxOwners() = default;

  // Records that `placement.node` holds sandbox `placement.id`, replacing
  // any earlier placement of that id. Commits before it returns. An empty
  // or over-long field: InvalidArgument ("invalid_placement"); a server
  // store that cannot be reached: Unavailable ("store_unavailable").
  // Thread-safe.
  virtual Status PlaceSandbox(const SandboxPlacement& placement) = 0;

  // The placement of sandbox `id` if it belongs to `tenant`; nullopt when
  // none is recorded or it is another tenant's (the same answer, so that
  // ids of other tenants cannot be probed). Failure as PlaceSandbox's.
  // Thread-safe.
  virtual StatusOr<std::optional<SandboxPlacement>> SandboxOwner(const std::string& id,
                                                                 const std::string& tenant) = 0;

  // The placement of sandbox `id`, whatever its tenant; nullopt when none
  // is recorded. Only for a caller that proves its right to the sandbox
  // with what its owner node alone checks (an E2B call's access token,
  // e2b_envd.h): such a caller names no tenant. Failure as PlaceSandbox's.
  // Thread-safe.
  virtual StatusOr<std::optional<SandboxPlacement>> PlacementOf(const std::string& id) = 0;

  // Removes the placement of `id` (its sandbox was deleted). An unknown id
  // is OK. Failure as PlaceSandbox's. Thread-safe.
  virtual Status ForgetSandbox(const std::string& id) = 0;
};

// Checks `placement` against PlaceSandbox's rules: OK or InvalidArgument
// ("invalid_placement") naming the field. Pure; thread-safe.
Status CheckSandboxPlacement(const SandboxPlacement& placement);

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_SANDBOX_OWNERS_H_
