#include "mcp_tool_catalog.h"

#include <string>

namespace coderunner::api::mcp {
namespace {

using nlohmann::json;

// Annotations: what a client may assume of a tool (the specification's
// hints). Every tool touches only the sandbox, never the world outside:
// openWorldHint is false throughout.
json Annotations(bool read_only, bool destructive, bool idempotent) {
  return {{"readOnlyHint", read_only},
          {"destructiveHint", destructive},
          {"idempotentHint", idempotent},
          {"openWorldHint", false}};
}

json Object(json properties, json required = json::array()) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", required}};
}

// A schema of any JSON value (a field whose type the REST API fixes).
json AnyOf(const char* description) { return {{"description", description}}; }

json Str(const char* description) { return {{"type", "string"}, {"description", description}}; }

json FilesSchema() {
  return {{"type", "array"},
          {"description",
           "files written into the working directory before the run: {path, content, "
           "encoding?: \"utf8\"|\"base64\"}"},
          {"items", Object({{"path", Str("relative path")},
                            {"content", Str("the file's content")},
                            {"encoding", {{"type", "string"}, {"enum", {"utf8", "base64"}}}}},
                           {"path", "content"})}};
}

json LimitsSchema() {
  return {{"type", "object"},
          {"description",
           "per-run limits within the tier: timeout_ms, memory_bytes, pids, output_bytes, "
           "tmp_bytes, cpus"},
          {"additionalProperties", true}};
}

json Tool(const char* name, const char* title, const char* description, json input, json output,
          json annotations) {
  return {{"name", name},
          {"title", title},
          {"description", description},
          {"inputSchema", std::move(input)},
          {"outputSchema", std::move(output)},
          {"annotations", std::move(annotations)}};
}

json RunOutput() {
  json artifact = Object({{"path", Str("path under /output")},
                          {"size", {{"type", "integer"}}},
                          {"uri", Str("the resource to read it")},
                          {"mime_type", Str("its media type")}});
  json out = Object({{"job_id", Str("the job, as GET /v1/jobs/{id} shows it")},
                     {"status", Str("succeeded, failed, timeout, memory_limit, ...")},
                     {"exit_code", {{"type", {"integer", "null"}}}},
                     {"stdout", {{"type", "string"}}},
                     {"stderr", {{"type", "string"}}},
                     {"artifacts", {{"type", "array"}, {"items", artifact}}},
                     {"metrics", {{"type", "object"}}},
                     {"error", AnyOf("{code, message} when the service refused the run")}});
  return out;
}

json RunCodeTool() {
  json input = Object({{"language", Str("python, javascript, typescript or bash (or an alias)")},
                       {"code", Str("the program")},
                       {"stdin", Str("the program's standard input")},
                       {"args", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                       {"files", FilesSchema()},
                       {"limits", LimitsSchema()}},
                      {"language", "code"});
  return Tool(kRunCode, "Run code",
              "Runs a program in a fresh sandbox (no network, read-only root, its own uid, hard "
              "limits) and returns its stdout, stderr and exit code. Files the program writes "
              "under /output come back: PNG, JPEG and SVG as images, others as resource links.",
              input, RunOutput(), Annotations(false, false, false));
}

json ListLanguagesTool() {
  return Tool(kListLanguages, "List languages",
              "The languages this service runs: versions, aliases and preinstalled packages.",
              Object(json::object()),
              Object({{"languages", {{"type", "array"}, {"items", {{"type", "object"}}}}}}),
              Annotations(true, false, true));
}

json SandboxOutput() {
  return Object({{"id", Str("the sandbox")},
                 {"state", Str("running, stopped or expired")},
                 {"language", {{"type", "string"}}},
                 {"expires_at", {{"type", {"string", "null"}}}},
                 {"error", AnyOf("{code, message} when the service refused")}});
}

json SandboxIdInput() {
  return Object({{"sandbox_id", Str("the sandbox's id (sbx-...)")}}, {"sandbox_id"});
}

}  // namespace

namespace {

json SandboxTools() {
  json tools = json::array();
  tools.push_back(Tool(
      kSandboxCreate, "Create a sandbox",
      "Starts a stateful sandbox: an interpreter kept alive between sandbox_execute calls, "
      "so variables, imports and files under /output carry over. Ends after ttl_s unused.",
      Object({{"language", Str("python, javascript, typescript or bash")},
              {"ttl_s", {{"type", "integer"}, {"description", "seconds unused before it ends"}}},
              {"limits", LimitsSchema()},
              {"volume_id", Str("a persistent volume to mount at /data")}}),
      SandboxOutput(), Annotations(false, false, false)));
  json call_output = Object({{"sandbox_id", {{"type", "string"}}},
                             {"status", {{"type", "string"}}},
                             {"exit_code", {{"type", {"integer", "null"}}}},
                             {"stdout", {{"type", "string"}}},
                             {"stderr", {{"type", "string"}}},
                             {"files", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                             {"state_lost", {{"type", "boolean"}}},
                             {"error", AnyOf("{code, message} when the service refused")}});
  tools.push_back(Tool(kSandboxExecute, "Execute in a sandbox",
                       "Runs code in a sandbox's live interpreter; state from earlier calls is "
                       "still there.",
                       Object({{"sandbox_id", Str("the sandbox's id (sbx-...)")},
                               {"code", Str("the code to run")},
                               {"files", FilesSchema()},
                               {"timeout_ms", {{"type", "integer"}}}},
                              {"sandbox_id", "code"}),
                       call_output, Annotations(false, false, false)));
  tools.push_back(
      Tool(kSandboxList, "List sandboxes", "The caller's sandboxes, newest first.",
           Object({{"state", {{"type", "string"}, {"enum", {"running", "stopped", "expired"}}}},
                   {"language", {{"type", "string"}}}}),
           Object({{"sandboxes", {{"type", "array"}, {"items", {{"type", "object"}}}}}}),
           Annotations(true, false, true)));
  tools.push_back(
      Tool(kSandboxFiles, "List a sandbox's files",
           "The files under a sandbox's /output, each with the resource URI to read it.",
           SandboxIdInput(),
           Object({{"id", {{"type", "string"}}},
                   {"files", {{"type", "array"}, {"items", {{"type", "object"}}}}},
                   {"error", AnyOf("{code, message} when the service refused")}}),
           Annotations(true, false, true)));
  tools.push_back(Tool(kSandboxDelete, "Delete a sandbox",
                       "Stops a sandbox and removes its container and files.", SandboxIdInput(),
                       Object({{"id", {{"type", "string"}}},
                               {"deleted", {{"type", "boolean"}}},
                               {"error", AnyOf("{code, message} when the service refused")}}),
                       Annotations(false, true, true)));
  return tools;
}

json ExecuteIntentTool() {
  return Tool(kExecuteIntent, "Execute an intent",
              "Execute mode: turns a request in plain words into code, runs it in a sandbox and "
              "answers from its output. Reports its four stages (plan, generate code, execute, "
              "answer) as progress.",
              Object({{"intent", Str("what to compute, in plain words")},
                      {"language", Str("the language to write it in (default: chosen)")},
                      {"inputs", AnyOf("named values the program may read")},
                      {"volume_id", Str("a persistent volume to mount at /data")},
                      {"limits", LimitsSchema()}},
                     {"intent"}),
              Object({{"id", {{"type", "string"}}},
                      {"status", {{"type", "string"}}},
                      {"answer", AnyOf("the answer, from the program's output")},
                      {"error", AnyOf("{code, message} when it failed")}}),
              Annotations(false, false, false));
}

}  // namespace

json ToolDefinitions(bool sandboxes, bool intents) {
  json tools = json::array({RunCodeTool(), ListLanguagesTool()});
  if (sandboxes) {
    for (auto& t : SandboxTools()) tools.push_back(std::move(t));
  }
  if (intents) tools.push_back(ExecuteIntentTool());
  return tools;
}

}  // namespace coderunner::api::mcp
