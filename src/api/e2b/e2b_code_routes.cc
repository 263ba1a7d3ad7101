// The code interpreter (@e2b/code-interpreter, its port 49999): runCode as
// POST /execute, answered in NDJSON lines as the code runs
// (e2b_execution_lines.h), run by the interpreter of the context it names
// (e2b_contexts.h), whose variables and imports last between calls.
#include <httplib.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/ids.h"
#include "e2b/e2b_contexts.h"
#include "e2b/e2b_envd.h"
#include "e2b/e2b_execution_lines.h"
#include "e2b/e2b_json.h"
#include "e2b/e2b_relay.h"
#include "e2b/e2b_routes.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;

constexpr char kNdjsonType[] = "application/x-ndjson";
// Lines not yet written to the caller that one call may hold, bytes: a
// caller that reads slower than the cell prints (or a cell printing a
// newline a write, each a line of some 30 bytes) stops the lines there,
// and the rest of the output comes at the end, in one line each stream.
constexpr size_t kMaxPendingLineBytes = 1 << 20;

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

// One runCode call run on a thread of its own while the caller's thread
// relays its lines as they come (ExecutionLines). Shared by the two.
struct LiveCall {
  std::mutex mu;
  std::condition_variable cv;
  ExecutionLines lines;
  std::string ready;        // Lines not yet written to the caller.
  bool overflowed = false;  // ready went past kMaxPendingLineBytes.
  bool done = false;
  StatusOr<sandboxes::ExecuteOutcome> outcome = InternalError("not run");

  explicit LiveCall(JsonBounds bounds) : lines(bounds) {}
};

// Joins the call's thread when the last holder goes (the call ends within
// its timeout, whether or not the caller stayed).
struct CallThread {
  std::thread thread;
  ~CallThread() {
    if (thread.joinable()) thread.join();
  }
};

// Starts `spec` on `target` and returns once it has a line for the caller
// or has ended.
std::shared_ptr<LiveCall> StartCall(const E2bDeps& deps, const auth::Principal& who,
                                    const std::string& target, sandboxes::SandboxCallSpec spec,
                                    std::shared_ptr<CallThread>& runner) {
  auto call = std::make_shared<LiveCall>(BodyBounds(*deps.config));
  spec.on_output = [call](bool is_stderr, std::string_view bytes) {
    std::lock_guard<std::mutex> lock(call->mu);
    call->overflowed = call->overflowed || call->ready.size() > kMaxPendingLineBytes;
    if (call->overflowed) return;  // ExecutionLines::End sends the rest.
    call->ready += call->lines.Piece(is_stderr, bytes);
    if (!call->ready.empty()) call->cv.notify_all();
  };
  runner = std::make_shared<CallThread>();
  runner->thread = std::thread([deps, who, target, spec = std::move(spec), call]() mutable {
    auto outcome = deps.sandboxes->Execute(who, target, spec);
    std::lock_guard<std::mutex> lock(call->mu);
    call->ready += outcome.ok() ? call->lines.End(*outcome) : call->lines.Failed(outcome.status());
    call->outcome = std::move(outcome);
    call->done = true;
    call->cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(call->mu);
  call->cv.wait(lock, [&] { return call->done || !call->ready.empty(); });
  return call;
}

// The provider that writes `call`'s lines as they come, to its end.
httplib::ContentProviderWithoutLength Relay(std::shared_ptr<LiveCall> call,
                                            std::shared_ptr<CallThread> runner) {
  return [call, runner](size_t, httplib::DataSink& sink) {
    std::unique_lock<std::mutex> lock(call->mu);
    for (;;) {
      call->cv.wait(lock, [&] { return call->done || !call->ready.empty(); });
      std::string lines = std::move(call->ready);
      call->ready.clear();
      const bool done = call->done;
      lock.unlock();
      if (!lines.empty() && !sink.write(lines.data(), lines.size())) return false;
      if (done) break;
      lock.lock();
    }
    sink.done();
    return true;
  };
}

void Execute(const E2bDeps& deps, const httplib::Request& req, httplib::Response& res) {
  auto envd = ResolveEnvdCall(deps, req);
  if (!envd.ok()) return ReplyCodeError(res, envd.status());
  auto record = deps.sandboxes->Get(envd->who.tenant, envd->sandbox_id);
  if (!record.ok()) return ReplyCodeError(res, record.status());
  const JsonBounds bounds = BodyBounds(*deps.config);
  auto body = ParseBoundedJson(req.body, bounds);
  if (!body.ok()) return ReplyCodeError(res, body.status());
  auto code = CodeOf(*body);
  if (!code.ok()) return ReplyCodeError(res, code.status());
  auto target = TargetOf(deps, envd->who, *record, *body);
  if (!target.ok()) return ReplyCodeError(res, target.status());
  sandboxes::SandboxCallSpec spec;
  spec.code = std::move(*code);
  std::shared_ptr<CallThread> runner;
  auto call = StartCall(deps, envd->who, *target, std::move(spec), runner);
  {
    std::lock_guard<std::mutex> lock(call->mu);
    // Failed before any output: an error of the request, as before it ran.
    if (call->done && !call->outcome.ok()) return ReplyCodeError(res, call->outcome.status());
  }
  res.status = 200;
  res.set_chunked_content_provider(kNdjsonType, Relay(call, runner));
}

}  // namespace

void RegisterCodeRoutes(EnvdRoutes& http, const E2bDeps& deps) {
  http.PostRaw(
      "/e2b/execute",
      [deps](const httplib::Request& req, httplib::Response& res) { Execute(deps, req, res); },
      ReplyCodeError);
}

}  // namespace coderunner::api::e2b
