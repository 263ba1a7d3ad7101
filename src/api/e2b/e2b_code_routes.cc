// The code interpreter (@e2b/code-interpreter, its port 49999): runCode as
// POST /execute, answered in NDJSON lines, run by the interpreter of the
// context it names (e2b_contexts.h), whose variables and imports last
// between calls.
#include <httplib.h>

#include <mutex>

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/ids.h"
#include "e2b/e2b_contexts.h"
#include "e2b/e2b_envd.h"
#include "e2b/e2b_json.h"
#include "e2b/e2b_relay.h"
#include "e2b/e2b_routes.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;

constexpr char kNdjsonType[] = "application/x-ndjson";

// runCode's code; envs are not per call here.
StatusOr<std::string> CodeOf(const json& body) {
  if (!body.is_object() || !body.contains("code") || !body["code"].is_string()) {
    return InvalidArgumentError("code: a string is required", "invalid_request");
  }
  if (body.contains("env_vars") && !body["env_vars"].empty()) {
    return InvalidArgumentError(
        "env_vars on runCode are not supported: give envs to "
        "Sandbox.create, they reach the interpreter",
        kReasonE2bUnsupported);
  }
  return body["code"].get<std::string>();
}

// Serializes finding or making a language's default context, so that two
// runCode calls for a new language make one.
std::mutex& LanguageDefaultMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}

// The sandbox runCode runs in: the one `context_id` names (the sandbox's
// own interpreter, or a context made for it), else the default context of
// `language` (the sandbox's own for its language; for another, a context
// made on first use), else the sandbox's own.
StatusOr<std::string> TargetOf(const E2bDeps& deps, const auth::Principal& who,
                               const sandboxes::SandboxRecord& parent, const json& body) {
  if (body.contains("context_id") && body["context_id"].is_string()) {
    const std::string id = body["context_id"].get<std::string>();
    if (id == DefaultContextId(parent)) return parent.id;
    CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord context,
                        ContextOf(deps, who.tenant, parent.id, id));
    return context.id;
  }
  if (!body.contains("language") || !body["language"].is_string()) return parent.id;
  const std::string language = CoderunnerLanguage(body["language"].get<std::string>());
  if (language == parent.language) return parent.id;
  std::lock_guard<std::mutex> lock(LanguageDefaultMutex());
  for (const auto& context : ContextsOf(deps, who.tenant, parent.id)) {
    auto it = context.metadata.find(kLanguageDefault);
    if (it != context.metadata.end() && it->second == language) return context.id;
  }
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord made,
                      CreateContext(deps, who, parent, language, NewId("sbx"), true));
  return made.id;
}

void AddLine(std::string* out, const json& line) {
  out->append(line.dump(-1, ' ', false, json::error_handler_t::replace));
  out->push_back('\n');
}

// One result line: each format, `json` as the value its text holds.
json ResultLine(const sandboxes::RichResult& result, const JsonBounds& bounds) {
  json line = {{"type", "result"}, {"is_main_result", result.is_main_result}};
  for (const auto& [format, data] : result.formats) {
    if (format == "json") {
      json value = ParseBoundedJsonOrDiscarded(data, bounds);
      line[format] = value.is_discarded() ? json(data) : value;
    } else {
      line[format] = data;
    }
  }
  return line;
}

// The call as the SDK reads it: stdout, stderr (without the traceback the
// error line carries), results, the error, the execution count. Never an
// empty line (the SDK would fail to parse it).
std::string ExecutionLines(const sandboxes::ExecuteOutcome& o, const JsonBounds& bounds) {
  const sandboxes::CallResult& r = o.result;
  std::string stderr_data = r.stderr_data;
  if (r.cell.error && stderr_data.ends_with(r.cell.error->traceback)) {
    stderr_data.resize(stderr_data.size() - r.cell.error->traceback.size());
  }
  std::string out;
  if (!r.stdout_data.empty()) AddLine(&out, {{"type", "stdout"}, {"text", r.stdout_data}});
  if (!stderr_data.empty()) AddLine(&out, {{"type", "stderr"}, {"text", stderr_data}});
  for (const auto& result : r.cell.results) AddLine(&out, ResultLine(result, bounds));
  if (r.cell.error) {
    AddLine(&out, {{"type", "error"},
                   {"name", r.cell.error->name},
                   {"value", r.cell.error->value},
                   {"traceback", r.cell.error->traceback}});
  } else if (r.status == isolation::RunStatus::kTimeout) {
    AddLine(&out, {{"type", "error"},
                   {"name", "TimeoutError"},
                   {"value", "the execution ran past its timeout"},
                   {"traceback", ""}});
  } else if (!r.error.ok()) {
    AddLine(&out, {{"type", "error"},
                   {"name", r.error.reason()},
                   {"value", r.error.message()},
                   {"traceback", ""}});
  }
  AddLine(&out, {{"type", "number_of_executions"}, {"execution_count", o.record.executions}});
  return out;
}

void Execute(const E2bDeps& deps, const httplib::Request& req, httplib::Response& res) {
  auto call = ResolveEnvdCall(deps, req);
  if (!call.ok()) return ReplyCodeError(res, call.status());
  auto record = deps.sandboxes->Get(call->who.tenant, call->sandbox_id);
  if (!record.ok()) return ReplyCodeError(res, record.status());
  const JsonBounds bounds = BodyBounds(*deps.config);
  auto body = ParseBoundedJson(req.body, bounds);
  if (!body.ok()) return ReplyCodeError(res, body.status());
  auto code = CodeOf(*body);
  if (!code.ok()) return ReplyCodeError(res, code.status());
  auto target = TargetOf(deps, call->who, *record, *body);
  if (!target.ok()) return ReplyCodeError(res, target.status());
  sandboxes::SandboxCallSpec spec;
  spec.code = std::move(*code);
  auto outcome = deps.sandboxes->Execute(call->who, *target, spec);
  if (!outcome.ok()) return ReplyCodeError(res, outcome.status());
  res.status = 200;
  res.set_content(ExecutionLines(*outcome, bounds), kNdjsonType);
}

}  // namespace

void RegisterCodeRoutes(EnvdRoutes& http, const E2bDeps& deps) {
  http.PostRaw(
      "/e2b/execute",
      [deps](const httplib::Request& req, httplib::Response& res) { Execute(deps, req, res); },
      ReplyCodeError);
}

}  // namespace coderunner::api::e2b
