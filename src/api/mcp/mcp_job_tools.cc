// run_code, list_languages and execute_intent, and what every tool shares:
// the dispatch, progress and logging.
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "code_runner_gate.h"
#include "coderunner/common/base64.h"
#include "coderunner/common/utf8.h"
#include "coderunner/intent/intent_record.h"
#include "coderunner/intent/intent_request.h"
#include "coderunner/isolation/safe_tree.h"
#include "coderunner/wire/job_json.h"
#include "coderunner/wire/job_submission.h"
#include "mcp_content.h"
#include "mcp_protocol.h"
#include "mcp_tool_catalog.h"
#include "mcp_tools.h"

namespace coderunner::api::mcp {
namespace {

using nlohmann::json;

// How often a call that waits for its job wakes to check on it (its
// status and stage events wake it sooner).
constexpr auto kFollowSlice = std::chrono::seconds(1);
// Output bytes a follower takes from the job's event log per wake; it
// reads only status and stage events, and drops the output it is handed.
constexpr size_t kFollowOutputSlice = 64 << 10;

// The content blocks of a run's artifacts: PNG, JPEG and SVG inline as
// images, the rest as links to read with resources/read. Adds each one's
// uri and mime_type to `artifacts`.
json ArtifactContent(const config::Config& config, const std::string& job_id, json& artifacts) {
  json blocks = json::array();
  if (!artifacts.is_array()) return blocks;
  for (auto& a : artifacts) {
    if (!a.is_object() || !a.contains("path") || !a["path"].is_string()) continue;
    std::string path = a["path"];
    std::string type = MimeTypeOf(path);
    a["uri"] = JobArtifactUri(job_id, path);
    a["mime_type"] = type;
    if (IsInlineImage(type)) {
      auto fd = isolation::OpenTreeFile(config.artifacts.dir + "/" + job_id, path);
      auto bytes =
          fd.ok() ? ReadBounded(*fd, kMaxInlineImageBytes) : StatusOr<std::string>(fd.status());
      if (bytes.ok()) {
        blocks.push_back({{"type", "image"}, {"data", Base64Encode(*bytes)}, {"mimeType", type}});
        continue;
      }
    }
    json link = {{"type", "resource_link"}, {"uri", a["uri"]}, {"name", path}, {"mimeType", type}};
    if (a.contains("size")) link["size"] = a["size"];
    blocks.push_back(std::move(link));
  }
  return blocks;
}

// The CallToolResult of a finished job: its result as structuredContent
// (job_id added, each artifact with its uri), a text summary, its images
// and links; isError unless it succeeded with exit code 0.
json RunResult(const config::Config& config, const store::JobRecord& rec) {
  json result = json::parse(rec.result_json, nullptr, /*allow_exceptions=*/false);
  if (!result.is_object()) result = json::object();
  result["job_id"] = rec.id;
  if (!result.contains("status")) result["status"] = store::JobStatusName(rec.status);
  json blocks = json::array();
  std::string status = result["status"].is_string() ? result["status"].get<std::string>() : "";
  json exit_code = result.value("exit_code", json(nullptr));
  std::string summary = "status: " + status + ", exit code: " +
                        (exit_code.is_number() ? exit_code.dump() : std::string("none"));
  if (result.contains("error") && result["error"].is_object()) {
    summary += ", error: " + result["error"].value("message", std::string());
  }
  summary += "\n--- stdout ---\n" + result.value("stdout", std::string()) + "\n--- stderr ---\n" +
             result.value("stderr", std::string());
  blocks.push_back(TextContent(std::move(summary)));
  if (result.contains("artifacts")) {
    for (auto& b : ArtifactContent(config, rec.id, result["artifacts"])) blocks.push_back(b);
  }
  bool ok = status == "succeeded" && exit_code.is_number() && exit_code.get<int64_t>() == 0;
  return {
      {"content", std::move(blocks)}, {"structuredContent", std::move(result)}, {"isError", !ok}};
}

// The CallToolResult of a finished intent: its record's answer, stages,
// attempts and final run as structuredContent, the answer (or the error)
// as text; isError unless it succeeded.
json IntentResult(const json& record) {
  json structured = json::object();
  for (const char* key :
       {"id", "status", "language", "answer", "stages", "attempts", "result", "error", "agent"}) {
    if (record.contains(key)) structured[key] = record[key];
  }
  const bool ok = record.value("status", std::string()) == "succeeded";
  std::string text;
  if (record.contains("answer") && record["answer"].is_string()) {
    text = record["answer"].get<std::string>();
  } else if (record.contains("error") && record["error"].is_object()) {
    text = "error " + record["error"].value("code", std::string()) + ": " +
           record["error"].value("message", std::string());
  } else {
    text = "intent " + record.value("status", std::string());
  }
  return {{"content", json::array({TextContent(std::move(text))})},
          {"structuredContent", std::move(structured)},
          {"isError", !ok}};
}

}  // namespace

void ToolCall::Progress(const std::string& message) {
  if (!progress_token_) return;
  notify_(NotificationMessage(
      "notifications/progress",
      {{"progressToken", *progress_token_}, {"progress", ++progress_}, {"message", message}}));
}

void ToolCall::Log(std::string_view level, const std::string& text) {
  if (!session_.Logs(LogLevelRank(level))) return;
  notify_(NotificationMessage("notifications/message",
                              {{"level", level}, {"logger", "coderunner"}, {"data", text}}));
}

json McpTools::List() const { return ToolDefinitions(deps_.sandboxes != nullptr, deps_.intents); }

StatusOr<ToolOutcome> McpTools::Call(std::string_view name, ToolCall& call) const {
  using Method = ToolOutcome (McpTools::*)(ToolCall&) const;
  struct Entry {
    const char* name;
    Method method;
    bool offered;
  };
  const bool sandboxes = deps_.sandboxes != nullptr;
  const Entry entries[] = {
      {kRunCode, &McpTools::RunCode, true},
      {kListLanguages, &McpTools::ListLanguages, true},
      {kSandboxCreate, &McpTools::SandboxCreate, sandboxes},
      {kSandboxExecute, &McpTools::SandboxExecute, sandboxes},
      {kSandboxList, &McpTools::SandboxList, sandboxes},
      {kSandboxFiles, &McpTools::SandboxFiles, sandboxes},
      {kSandboxDelete, &McpTools::SandboxDelete, sandboxes},
      {kExecuteIntent, &McpTools::ExecuteIntent, deps_.intents},
  };
  for (const auto& e : entries) {
    if (e.offered && name == e.name) return (this->*e.method)(call);
  }
  return InvalidArgumentError("unknown tool: " + SanitizeUtf8(std::string(name.substr(0, 128))),
                              "unknown_tool");
}

StatusOr<std::optional<store::JobRecord>> McpTools::Follow(const std::string& id,
                                                           ToolCall& call) const {
  jobs::JobService& service = *deps_.jobs;
  const std::string& tenant = call.caller().tenant;
  call.cancel().OnCancel([&service, id, tenant] { (void)service.Cancel(id, tenant); });
  if (auto channel = service.Channel(id)) {
    jobs::EventCursor cursor;
    bool done = false;
    while (!done) {
      std::vector<jobs::JobEvent> events;
      done = channel->WaitEvents(&cursor, std::chrono::steady_clock::now() + kFollowSlice,
                                 kFollowOutputSlice, &events);
      for (const auto& e : events) {
        if (e.kind == jobs::JobEvent::Kind::kStatus) call.Progress("job " + id + ": " + e.data);
        if (e.kind != jobs::JobEvent::Kind::kStage) continue;
        json stage = json::parse(e.data, nullptr, /*allow_exceptions=*/false);
        if (stage.is_object()) {
          call.Progress(stage.value("name", std::string("stage")) + ": " +
                        stage.value("status", std::string()));
        }
      }
    }
  }
  CR_ASSIGN_OR_RETURN(
      store::JobRecord rec,
      service.Wait(id, tenant, std::chrono::seconds(service.config().jobs.max_wait_s)));
  if (rec.status == store::JobStatus::kCancelled && call.cancel().cancelled()) {
    return std::optional<store::JobRecord>();
  }
  return std::optional<store::JobRecord>(std::move(rec));
}

ToolOutcome McpTools::RunCode(ToolCall& call) const {
  const config::Config& config = *deps_.config;
  if (!config.code_runner.enabled) return {ToolError(CodeRunnerDisabledError())};
  auto slot = auth_.HoldLongRequest(call.caller());
  if (!slot.ok()) return {ToolError(slot.status())};
  auto submission = wire::JobSubmissionFromJson(call.arguments(), deps_.jobs->submission_rules());
  if (!submission.ok()) return {ToolError(submission.status())};
  auto accepted =
      deps_.jobs->Submit(call.caller().tenant, std::move(*submission), call.caller().tier);
  if (!accepted.ok()) return {ToolError(accepted.status())};
  const std::string id = accepted->record.id;
  call.Log("info", "job " + id + " accepted");
  auto rec = Follow(id, call);
  if (!rec.ok()) return {ToolError(rec.status())};
  if (!*rec) return {json(), /*cancelled=*/true};
  json result = RunResult(config, **rec);
  call.Log(result["isError"].get<bool>() ? "warning" : "info",
           "job " + id + " " + result["structuredContent"].value("status", std::string()));
  return {std::move(result)};
}

ToolOutcome McpTools::ListLanguages(ToolCall&) const {
  ProbeAnswer a = deps_.languages();
  json body = json::parse(a.body, nullptr, /*allow_exceptions=*/false);
  if (a.status != 200 || !body.is_object()) {
    return {ToolError(UnavailableError("the engine did not answer: languages unknown for now",
                                       "engine_unavailable"))};
  }
  json languages = body.value("languages", json::array());
  json text = json::array();
  for (const auto& l : languages) {
    if (l.is_object())
      text.push_back(l.value("name", std::string()) + " " + l.value("version", std::string()));
  }
  std::string summary;
  for (const auto& t : text) summary += t.get<std::string>() + "\n";
  return {{{"content", json::array({TextContent(summary)})},
           {"structuredContent", {{"languages", std::move(languages)}}},
           {"isError", false}}};
}

ToolOutcome McpTools::ExecuteIntent(ToolCall& call) const {
  const config::Config& config = *deps_.config;
  const auth::Principal& p = call.caller();
  if (!config.code_runner.enabled) return {ToolError(CodeRunnerDisabledError())};
  // Unlike POST /v1/intents, the call waits for its intent to end.
  auto slot = auth_.HoldLongRequest(p);
  if (!slot.ok()) return {ToolError(slot.status())};
  auto parsed = intent::ParseIntentRequest(call.arguments().dump(), config, p.tier);
  if (!parsed.ok()) return {ToolError(parsed.status())};
  if (!parsed->volume_id.empty()) {
    Status volume = deps_.jobs->CheckVolume(p.tenant, p.tier, parsed->volume_id);
    if (!volume.ok()) return {ToolError(volume)};
  }
  auto rec = intent::IntentRecord(p.tenant, p.tier, *parsed, config);
  if (!rec.ok()) return {ToolError(rec.status())};
  auto accepted = deps_.jobs->SubmitRecord(std::move(*rec), p.tier, config.max_limits.output_bytes);
  if (!accepted.ok()) return {ToolError(accepted.status())};
  call.Log("info", "intent " + accepted->record.id + " accepted");
  auto done = Follow(accepted->record.id, call);
  if (!done.ok()) return {ToolError(done.status())};
  if (!*done) return {json(), /*cancelled=*/true};
  return {IntentResult(wire::JobToJson(**done))};
}

}  // namespace coderunner::api::mcp
