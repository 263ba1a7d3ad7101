// The JSON of /v1/sandboxes answers, shared by the REST routes and the MCP
// sandbox tools so both say the same. Pure; private to src/api.
#ifndef CODERUNNER_API_SANDBOX_JSON_H_
#define CODERUNNER_API_SANDBOX_JSON_H_

#include <nlohmann/json.hpp>
#include <vector>

#include "coderunner/isolation/artifacts.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "coderunner/sandboxes/sandbox_record.h"

namespace coderunner::api {

// A sandbox as GET /v1/sandboxes/{id} answers it.
nlohmann::json SandboxJson(const sandboxes::SandboxRecord& r);
// Files under a sandbox's /output: path, size, disk_bytes, sha256.
nlohmann::json FilesJson(const std::vector<isolation::Artifact>& files);
// A call's rich results: [{"is_main_result": B, FORMAT: DATA, ...}].
nlohmann::json ResultsJson(const sandboxes::CellRecords& cell);
// POST /v1/sandboxes/{id}/execute's answer.
nlohmann::json CallJson(const sandboxes::ExecuteOutcome& o);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_SANDBOX_JSON_H_
