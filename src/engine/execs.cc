#include "coderunner/engine/execs.h"

#include <nlohmann/json.hpp>

#include "engine_error.h"
#include "resource_util.h"

namespace coderunner::engine {
namespace {

using nlohmann::json;

constexpr size_t kErrorBodyBytes = 4096;  // Of an error answer, for its message.

}  // namespace

StatusOr<std::string> ExecClient::Create(const std::string& container_id, const ExecSpec& spec) {
  CR_RETURN_IF_ERROR(CheckPathSegment("container id", container_id));
  if (spec.command.empty() || spec.user.empty()) {
    return InvalidArgumentError("exec: a command and a user are required");
  }
  json body = {{"AttachStdin", false}, {"AttachStdout", true}, {"AttachStderr", true},
               {"Tty", false},         {"Privileged", false},  {"Cmd", spec.command},
               {"User", spec.user}};
  if (!spec.working_dir.empty()) body["WorkingDir"] = spec.working_dir;
  if (!spec.env.empty()) body["Env"] = spec.env;
  HttpRequest req{"POST", "/containers/" + container_id + "/exec", body.dump(), timeout_};
  CR_ASSIGN_OR_RETURN(HttpResponse resp, transport_.Do(req));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "create exec"));
  json answer = json::parse(resp.body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object() || !answer.contains("Id") || !answer["Id"].is_string()) {
    return InternalError("create exec: engine answer has no Id", "engine_bad_response");
  }
  return answer["Id"].get<std::string>();
}

Status ExecClient::Start(const std::string& exec_id, const ChunkSink& sink,
                         std::chrono::milliseconds timeout, StreamAbort* abort) {
  CR_RETURN_IF_ERROR(CheckPathSegment("exec id", exec_id));
  // As for attach: no "Upgrade: tcp", so both engines answer 200 and stream
  // the multiplexed body until the process's stdio closes.
  HttpRequest req{"POST", "/exec/" + exec_id + "/start", R"({"Detach":false,"Tty":false})",
                  timeout};
  bool started = false;
  std::string error_body;
  auto on_response = [&](long status) { started = status >= 200 && status < 300; };
  auto guarded_sink = [&](std::string_view chunk) {
    if (!started) {
      if (error_body.size() < kErrorBodyBytes) error_body.append(chunk.substr(0, kErrorBodyBytes));
      return true;
    }
    return sink(chunk);
  };
  auto result = transport_.Stream(req, guarded_sink, on_response, abort);
  if (!result.ok()) return result.status().WithContext("start exec");
  if (!started) return StatusFromEngine({result->status, error_body}, "start exec");
  return OkStatus();
}

StatusOr<ExecState> ExecClient::Inspect(const std::string& exec_id) {
  CR_RETURN_IF_ERROR(CheckPathSegment("exec id", exec_id));
  CR_ASSIGN_OR_RETURN(HttpResponse resp,
                      transport_.Do({"GET", "/exec/" + exec_id + "/json", "", timeout_}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "inspect exec"));
  json body = json::parse(resp.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) {
    return InternalError("inspect exec: engine sent invalid JSON", "engine_bad_response");
  }
  ExecState state;
  if (auto it = body.find("Running"); it != body.end() && it->is_boolean()) state.running = *it;
  if (auto it = body.find("ExitCode"); it != body.end() && it->is_number_integer()) {
    state.exit_code = it->get<int>();
  }
  return state;
}

}  // namespace coderunner::engine
