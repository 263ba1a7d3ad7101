// MCP resources (docs/mcp.md): a job's artifacts and a running sandbox's
// files under /output, scoped to the caller's tenant exactly as the REST
// routes that serve them are; and the server's prompts. Private to
// src/api.
#ifndef CODERUNNER_API_MCP_MCP_RESOURCES_H_
#define CODERUNNER_API_MCP_MCP_RESOURCES_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/sandboxes/sandbox_manager.h"

namespace coderunner::api::mcp {

// Jobs whose artifacts resources/list names (the tenant's newest).
inline constexpr int kListedJobs = 20;

// Thread-safe; every pointee outlives it. `sandboxes` may be null (no
// sandbox files then).
class McpResources {
 public:
  McpResources(const config::Config& config, jobs::JobService& jobs,
               sandboxes::SandboxManager* sandboxes)
      : config_(config), jobs_(jobs), sandboxes_(sandboxes) {}

  // resources/templates/list's result.
  nlohmann::json Templates() const;
  // resources/list's result for `tenant`.
  nlohmann::json List(const std::string& tenant) const;
  // resources/read's result. NotFound (reason "resource_not_found") for a
  // URI that names nothing of the tenant's; FailedPrecondition
  // "resource_too_large" past kMaxResourceBytes.
  StatusOr<nlohmann::json> Read(const std::string& tenant, std::string_view uri) const;

  // prompts/list's result, and prompts/get's for `name` with `arguments`
  // (InvalidArgument for an unknown prompt or a missing argument).
  static nlohmann::json Prompts();
  static StatusOr<nlohmann::json> Prompt(std::string_view name, const nlohmann::json& arguments);

 private:
  const config::Config& config_;
  jobs::JobService& jobs_;
  sandboxes::SandboxManager* sandboxes_;
};

}  // namespace coderunner::api::mcp

#endif  // CODERUNNER_API_MCP_MCP_RESOURCES_H_
