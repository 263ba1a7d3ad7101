// The sandbox_* tools: /v1/sandboxes through MCP, parsed and bounded as the
// REST routes are.
#include <string>
#include <utility>

#include "code_runner_gate.h"
#include "coderunner/common/ids.h"
#include "coderunner/wire/execute_request.h"
#include "mcp_content.h"
#include "mcp_tools.h"
#include "sandbox_json.h"
#include "sandbox_requests.h"

namespace coderunner::api::mcp {
namespace {

using nlohmann::json;

json Success(json structured, std::string text) {
  return {{"content", json::array({TextContent(std::move(text))})},
          {"structuredContent", std::move(structured)},
          {"isError", false}};
}

// The arguments without "sandbox_id": what the REST body would hold.
json BodyOf(const json& arguments) {
  json body = arguments.is_object() ? arguments : json::object();
  body.erase("sandbox_id");
  return body;
}

StatusOr<std::string> SandboxIdOf(const json& arguments) {
  auto id = arguments.find("sandbox_id");
  if (id == arguments.end() || !id->is_string() || !IsId("sbx", id->get<std::string>())) {
    return InvalidArgumentError("sandbox_id: expected a sandbox id (sbx-...)", "invalid_request");
  }
  return id->get<std::string>();
}

// Each file of `files` with the resource URI to read it.
json FilesWithUris(json files, const std::string& sandbox_id) {
  for (auto& f : files) {
    std::string path = f.value("path", std::string());
    f["uri"] = SandboxFileUri(sandbox_id, path);
    f["mime_type"] = MimeTypeOf(path);
  }
  return files;
}

}  // namespace

ToolOutcome McpTools::SandboxCreate(ToolCall& call) const {
  const auth::Principal& p = call.caller();
  if (!deps_.config->code_runner.enabled) return {ToolError(CodeRunnerDisabledError())};
  if (p.tier == nullptr) return {ToolError(InternalError("tenant without a tier"))};
  auto create =
      SandboxCreateFromJson(BodyOf(call.arguments()), *deps_.config, *p.tier, NewId("sbx"));
  if (!create.ok()) return {ToolError(create.status())};
  auto rec = deps_.sandboxes->Create(p, std::move(*create));
  if (!rec.ok()) return {ToolError(rec.status())};
  if (deps_.forwarder != nullptr) {
    Status placed = deps_.forwarder->PlaceHere(p.tenant, rec->id);
    if (!placed.ok()) {
      (void)deps_.sandboxes->Delete(p.tenant, rec->id);
      return {ToolError(placed)};
    }
  }
  call.Log("info", "sandbox " + rec->id + " created");
  return {Success(SandboxJson(*rec), "sandbox " + rec->id + " (" + rec->language + ") is running")};
}

ToolOutcome McpTools::SandboxExecute(ToolCall& call) const {
  const auth::Principal& p = call.caller();
  if (!deps_.config->code_runner.enabled) return {ToolError(CodeRunnerDisabledError())};
  auto id = SandboxIdOf(call.arguments());
  if (!id.ok()) return {ToolError(id.status())};
  auto spec = SandboxExecuteFromJson(BodyOf(call.arguments()), wire::CapsFromConfig(*deps_.config));
  if (!spec.ok()) return {ToolError(spec.status())};
  auto slot = auth_.HoldLongRequest(p);
  if (!slot.ok()) return {ToolError(slot.status())};
  call.Progress("sandbox " + *id + ": running");
  auto out = deps_.sandboxes->Execute(p, *id, *spec);
  if (!out.ok()) return {ToolError(out.status())};
  json structured = CallJson(*out);
  structured["files"] = FilesWithUris(structured["files"], *id);
  std::string status = structured.value("status", std::string());
  json exit_code = structured.value("exit_code", json(nullptr));
  bool ok = status == "succeeded" && exit_code.is_number() && exit_code.get<int64_t>() == 0;
  std::string text =
      "status: " + status +
      ", exit code: " + (exit_code.is_number() ? exit_code.dump() : std::string("none")) +
      "\n--- stdout ---\n" + structured.value("stdout", std::string()) + "\n--- stderr ---\n" +
      structured.value("stderr", std::string());
  json result = Success(std::move(structured), std::move(text));
  result["isError"] = !ok;
  return {std::move(result)};
}

ToolOutcome McpTools::SandboxList(ToolCall& call) const {
  const json& args = call.arguments();
  std::optional<sandboxes::SandboxState> state;
  if (auto s = args.find("state"); s != args.end() && !s->is_null()) {
    if (s->is_string()) state = sandboxes::ParseState(s->get<std::string>());
    if (!state) {
      return {ToolError(
          InvalidArgumentError("state: must be running, stopped or expired", "invalid_request"))};
    }
  }
  std::string language;
  if (auto l = args.find("language"); l != args.end() && l->is_string()) language = *l;
  json list = json::array();
  std::string text;
  for (const auto& r : deps_.sandboxes->List(call.caller().tenant, state, language)) {
    list.push_back(SandboxJson(r));
    text += r.id + " " + std::string(sandboxes::StateName(r.state)) + " " + r.language + "\n";
  }
  return {Success({{"sandboxes", std::move(list)}}, text.empty() ? "no sandboxes" : text)};
}

ToolOutcome McpTools::SandboxFiles(ToolCall& call) const {
  auto id = SandboxIdOf(call.arguments());
  if (!id.ok()) return {ToolError(id.status())};
  auto files = deps_.sandboxes->Files(call.caller().tenant, *id);
  if (!files.ok()) return {ToolError(files.status())};
  json list = FilesWithUris(FilesJson(*files), *id);
  json result = Success({{"id", *id}, {"files", list}}, std::to_string(list.size()) + " files");
  for (const auto& f : list) {
    result["content"].push_back({{"type", "resource_link"},
                                 {"uri", f["uri"]},
                                 {"name", f["path"]},
                                 {"mimeType", f["mime_type"]},
                                 {"size", f["size"]}});
  }
  return {std::move(result)};
}

ToolOutcome McpTools::SandboxDelete(ToolCall& call) const {
  auto id = SandboxIdOf(call.arguments());
  if (!id.ok()) return {ToolError(id.status())};
  Status deleted = deps_.sandboxes->Delete(call.caller().tenant, *id);
  if (!deleted.ok()) return {ToolError(deleted)};
  if (deps_.forwarder != nullptr) {
    Status forgotten = deps_.forwarder->Forget(*id);
    if (!forgotten.ok()) return {ToolError(forgotten)};
  }
  return {Success({{"id", *id}, {"deleted", true}}, "sandbox " + *id + " deleted")};
}

}  // namespace coderunner::api::mcp
