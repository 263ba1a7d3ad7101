// The definitions tools/list gives: each tool's name, title, description,
// input and output schemas (JSON Schema) and annotations. Pure; private to
// src/api.
#ifndef CODERUNNER_API_MCP_MCP_TOOL_CATALOG_H_
#define CODERUNNER_API_MCP_MCP_TOOL_CATALOG_H_

#include <nlohmann/json.hpp>

namespace coderunner::api::mcp {

// Tool names.
inline constexpr char kRunCode[] = "run_code";
inline constexpr char kListLanguages[] = "list_languages";
inline constexpr char kSandboxCreate[] = "sandbox_create";
inline constexpr char kSandboxExecute[] = "sandbox_execute";
inline constexpr char kSandboxList[] = "sandbox_list";
inline constexpr char kSandboxFiles[] = "sandbox_files";
inline constexpr char kSandboxDelete[] = "sandbox_delete";
inline constexpr char kExecuteIntent[] = "execute_intent";

// The tools offered: run_code and list_languages always, the sandbox tools
// with `sandboxes`, execute_intent with `intents`.
nlohmann::json ToolDefinitions(bool sandboxes, bool intents);

}  // namespace coderunner::api::mcp

#endif  // CODERUNNER_API_MCP_MCP_TOOL_CATALOG_H_
