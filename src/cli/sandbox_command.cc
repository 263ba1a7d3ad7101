// `coderunner sandbox`: the stateful sandboxes (/v1/sandboxes). A call's
// output comes back as UTF-8 text (the sandbox API has no base64 form), so
// bytes that are not UTF-8 arrive replaced by U+FFFD.
#include <nlohmann/json.hpp>

#include "coderunner/common/base64.h"
#include "commands.h"
#include "console.h"
#include "exit_codes.h"

namespace coderunner::cli {
namespace {

using nlohmann::json;

std::string Dump(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }

int Create(const SandboxArgs& args, const CommandContext& ctx) {
  json body = json::object();
  if (!args.language.empty()) body["language"] = args.language;
  if (args.ttl_s) body["ttl_s"] = *args.ttl_s;
  auto created = ctx.client->Call("POST", "/v1/sandboxes", body.dump());
  if (!created.ok()) return ReportError(created.status());
  if (args.common.json) {
    WriteOut(Dump(created->body) + "\n");
  } else {
    WriteOut(created->body.value("id", "") + "\n");
  }
  return 0;
}

int Exec(const SandboxArgs& args, const CommandContext& ctx) {
  json body = json::object();
  if (args.code) {
    body["code"] = *args.code;
  } else {
    auto code = ReadInput(args.source);
    if (!code.ok()) return ReportError(code.status());
    body["code"] = *code;
  }
  if (args.timeout_ms) body["timeout_ms"] = *args.timeout_ms;
  if (!args.files.empty()) {
    json files = json::array();
    for (const auto& path : args.files) {
      auto content = ReadInput(path);
      if (!content.ok()) return ReportError(content.status());
      files.push_back({{"path", JobPathFor(path)},
                       {"content", Base64Encode(*content)},
                       {"encoding", "base64"}});
    }
    body["files"] = std::move(files);
  }
  Spinner spinner(ctx.progress, "running in " + args.id);
  // The call holds the request until the code is done; its own timeout
  // (the sandbox's, at most the tier's) bounds it, so no tighter bound here.
  auto call = ctx.client->Call("POST", "/v1/sandboxes/" + args.id + "/execute",
                               body.dump(-1, ' ', false, json::error_handler_t::replace),
                               std::chrono::hours(24));
  spinner.Stop();
  if (!call.ok()) return ReportError(call.status());
  const json& result = call->body;
  int code = ExitCodeForResult(result);
  if (args.common.json) {
    WriteOut(Dump(result) + "\n");
    return code;
  }
  WriteOut(result.value("stdout", ""));
  WriteErr(result.value("stderr", ""));
  if (result.contains("notice") && result["notice"].is_string()) {
    // Lost state changes what the code saw; say so even without a terminal.
    WriteErr("coderunner: " + result["notice"].get<std::string>() + "\n");
  }
  if (result.contains("error") && result["error"].is_object()) {
    const json& e = result["error"];
    WriteErr("coderunner: " + e.value("message", "error") + " (" + e.value("code", "") + ")\n");
  }
  return code;
}

int Remove(const SandboxArgs& args, const CommandContext& ctx) {
  auto deleted = ctx.client->Call("DELETE", "/v1/sandboxes/" + args.id);
  if (!deleted.ok()) return ReportError(deleted.status());
  WriteOut(args.common.json ? Dump(deleted->body) + "\n" : args.id + "\n");
  return 0;
}

int List(const SandboxArgs& args, const CommandContext& ctx) {
  auto listed = ctx.client->Call("GET", "/v1/sandboxes");
  if (!listed.ok()) return ReportError(listed.status());
  if (args.common.json) {
    WriteOut(Dump(listed->body) + "\n");
    return 0;
  }
  const json& all = listed->body.is_object() ? listed->body["sandboxes"] : json();
  if (!all.is_array()) return 0;
  for (const auto& s : all) {
    auto text = [&s](const char* key) {
      return s.contains(key) && s[key].is_string() ? s[key].get<std::string>() : "-";
    };
    WriteOut(text("id") + "  " + text("state") + "  " + text("language") + "  " +
             text("expires_at") + "\n");
  }
  return 0;
}

}  // namespace

int SandboxCommand(const SandboxArgs& args, const CommandContext& ctx) {
  if (args.action == "create") return Create(args, ctx);
  if (args.action == "exec") return Exec(args, ctx);
  if (args.action == "rm") return Remove(args, ctx);
  if (args.action == "ls") return List(args, ctx);
  return ReportError(InvalidArgumentError("coderunner sandbox: unknown action", kReasonUsage));
}

}  // namespace coderunner::cli
