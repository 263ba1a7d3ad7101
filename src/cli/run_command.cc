// `coderunner run`: one job through the async API.
//
// Why POST /v1/jobs + GET /v1/jobs/{id}/wait rather than /v1/execute: a
// long job would hold one HTTP request open for its whole run, and any
// proxy or idle timeout in between would cut it and lose the result. The
// wait route answers within a bounded time (202 while the job runs), so
// each request stays short and the loop survives jobs of any length; the
// job id is known from the start, which --json and error messages use.
#include <nlohmann/json.hpp>

#include "coderunner/common/base64.h"
#include "commands.h"
#include "console.h"
#include "exit_codes.h"

namespace coderunner::cli {
namespace {

using nlohmann::json;

// Each wait request asks the server to hold at most this long (well under
// jobs.max_wait_s, 300 by default, and any sane proxy timeout).
constexpr int kWaitSliceS = 10;

StatusOr<json> BuildRequest(const RunArgs& args) {
  std::string language = args.language;
  if (language.empty()) {
    CR_ASSIGN_OR_RETURN(language, LanguageFromPath(args.source));
  }
  CR_ASSIGN_OR_RETURN(std::string code, ReadInput(args.source));
  json body = {{"language", language},
               {"code", code},
               // The record shows readable text with --json; otherwise the
               // exact bytes come back in base64 and are written unchanged.
               {"output_encoding", args.common.json ? "utf8" : "base64"}};
  if (!args.stdin_path.empty()) {
    CR_ASSIGN_OR_RETURN(std::string in, ReadInput(args.stdin_path));
    body["stdin"] = std::move(in);
  }
  if (!args.args.empty()) body["args"] = args.args;
  if (!args.files.empty()) {
    json files = json::array();
    for (const auto& path : args.files) {
      CR_ASSIGN_OR_RETURN(std::string content, ReadInput(path));
      // base64 keeps binary files intact.
      files.push_back(
          {{"path", JobPathFor(path)}, {"content", Base64Encode(content)}, {"encoding", "base64"}});
    }
    body["files"] = std::move(files);
  }
  json limits = json::object();
  if (args.timeout_ms) limits["timeout_ms"] = *args.timeout_ms;
  if (args.memory_bytes) limits["memory_bytes"] = *args.memory_bytes;
  if (!limits.empty()) body["limits"] = std::move(limits);
  return body;
}

// Decodes one output stream of a result as the request asked for it.
std::string Output(const json& result, const char* stream) {
  std::string text = result.value(stream, "");
  if (result.value("output_encoding", "utf8") != "base64") return text;
  auto bytes = Base64Decode(text);
  return bytes.ok() ? *bytes : text;
}

}  // namespace

StatusOr<std::string> SubmitJob(const CommandContext& ctx, const json& body) {
  // Code and stdin are JSON strings: bytes that are not UTF-8 are replaced
  // rather than refused (the API has no binary form for them).
  CR_ASSIGN_OR_RETURN(auto accepted,
                      ctx.client->Call("POST", "/v1/jobs",
                                       body.dump(-1, ' ', false, json::error_handler_t::replace)));
  std::string id = accepted.body.is_object() ? accepted.body.value("id", "") : "";
  if (id.empty()) return InternalError("the service accepted the job without an id");
  return id;
}

int CancelInterruptedJob(const CommandContext& ctx, const std::string& id) {
  // Left alone, the job would run on to its own timeout for nobody.
  auto cancelled = ctx.client->Call("DELETE", "/v1/jobs/" + id, "", std::chrono::seconds(10));
  if (cancelled.ok()) {
    WriteErr("coderunner: interrupted: job " + id + " cancelled\n");
  } else {
    WriteErr("coderunner: interrupted: cancelling job " + id +
             " failed: " + cancelled.status().message() + "\n");
  }
  return kExitCancelled;
}

std::optional<int> AwaitRecord(const CommandContext& ctx, const std::string& id,
                               const std::string& what, Spinner& spinner, json* record) {
  for (;;) {
    if (InterruptFlag()->load()) {
      spinner.Stop();
      return CancelInterruptedJob(ctx, id);
    }
    auto waited =
        ctx.client->Call("GET", "/v1/jobs/" + id + "/wait?timeout_s=" + std::to_string(kWaitSliceS),
                         "", std::chrono::seconds(kWaitSliceS + 60), InterruptFlag());
    if (!waited.ok() && InterruptFlag()->load()) continue;
    if (!waited.ok()) {
      spinner.Stop();
      return ReportError(waited.status().WithContext(what));
    }
    if (waited->http_status == 200) {
      *record = std::move(waited->body);
      return std::nullopt;
    }
  }
}

int RunCommand(const RunArgs& args, const CommandContext& ctx) {
  auto body = BuildRequest(args);
  if (!body.ok()) return ReportError(body.status());
  // From here on an interrupt cancels the job instead of orphaning it.
  CatchInterrupts();
  auto submitted = SubmitJob(ctx, *body);
  if (!submitted.ok()) return ReportError(submitted.status());
  const std::string& id = *submitted;

  Spinner spinner(ctx.progress, "running " + id);
  json record;
  if (auto code = AwaitRecord(ctx, id, "job " + id, spinner, &record)) return *code;
  spinner.Stop();

  const json* result =
      record.is_object() && record.contains("result") ? &record["result"] : nullptr;
  int code = result != nullptr ? ExitCodeForResult(*result) : kExitError;
  if (args.common.json) {
    WriteOut(record.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
    return code;
  }
  if (result == nullptr || !result->is_object()) {
    return ReportError(InternalError("job " + id + " ended without a result"));
  }
  WriteOut(Output(*result, "stdout"));
  WriteErr(Output(*result, "stderr"));
  std::string status = result->value("status", "");
  const json& error = result->contains("error") ? (*result)["error"] : json();
  if (status == "error" || status == "cancelled" || (status == "failed" && error.is_object())) {
    // Not the program's doing: say why, as an error the service reported.
    std::string message = error.is_object() ? error.value("message", status) : "job " + status;
    std::string reason = error.is_object() ? error.value("code", "") : "";
    WriteErr("coderunner: job " + id + ": " + message +
             (reason.empty() ? "" : " (" + reason + ")") + "\n");
  } else if (ctx.progress && (status == "timeout" || status == "oom")) {
    WriteErr("coderunner: job " + id + (status == "oom" ? " ran out of memory" : " timed out") +
             "\n");
  }
  return code;
}

}  // namespace coderunner::cli
