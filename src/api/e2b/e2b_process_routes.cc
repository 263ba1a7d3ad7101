// process.Process: commands started, followed, fed, signalled and listed.
#include <httplib.h>

#include "coderunner/common/base64.h"
#include "e2b/connect_envelope.h"
#include "e2b/e2b_envd.h"
#include "e2b/e2b_json.h"
#include "e2b/e2b_relay.h"
#include "e2b/e2b_routes.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;
using sandboxes::ProcessEvent;

constexpr char kProcessService[] = "/e2b/process.Process/";

// The process a selector names: its pid, or the running one with its tag.
StatusOr<int64_t> SelectedPid(const E2bDeps& deps, const EnvdCall& call, const json& request) {
  CR_ASSIGN_OR_RETURN(
      Selector selector,
      SelectorFromJson(request.is_object() && request.contains("process") ? request["process"]
                                                                          : json()));
  if (selector.pid > 0) return selector.pid;
  return deps.processes->PidOfTag(call.sandbox_id, selector.tag);
}

std::string Frame(const json& message) {
  return Envelope(0, message.dump(-1, ' ', false, json::error_handler_t::replace));
}

// Start (`start`: a new process, followed from its start) or Connect (one
// running: a start event, then what it prints from now on).
void Stream(const E2bDeps& deps, const AuthAdapter& auth, bool start, const httplib::Request& req,
            httplib::Response& res) {
  auto call = ResolveEnvdCall(deps, req);
  if (!call.ok()) return ReplyStreamError(res, call.status());
  auto request = StreamRequestMessage(deps, req);
  if (!request.ok()) return ReplyStreamError(res, request.status());
  auto lease = auth.HoldLongRequest(call->who);
  if (!lease.ok()) return ReplyStreamError(res, lease.status());
  StatusOr<int64_t> pid = InvalidArgumentError("no process");
  if (start) {
    auto config = ProcessConfigFromJson(*request);
    if (!config.ok()) return ReplyStreamError(res, config.status());
    auto timeout = ConnectTimeoutOf(req.get_header_value("Connect-Timeout-Ms"));
    if (!timeout.ok()) return ReplyStreamError(res, timeout.status());
    config->timeout = *timeout;
    pid = deps.processes->Start(call->sandbox_id, call->target, *config);
  } else {
    pid = SelectedPid(deps, *call, *request);
  }
  if (!pid.ok()) return ReplyStreamError(res, pid.status());
  res.status = 200;
  res.set_chunked_content_provider(kConnectStreamType, [deps, start, id = call->sandbox_id,
                                                        pid = *pid, lease = *lease](
                                                           size_t, httplib::DataSink& sink) {
    auto write = [&sink](const std::string& bytes) {
      return sink.write(bytes.data(), bytes.size());
    };
    bool open =
        start || write(Frame(ProcessEventJson(ProcessEvent::Of(ProcessEvent::Kind::kStart, pid))));
    Status followed = OkStatus();
    if (open) {
      followed = deps.processes->Follow(id, pid, start, [&](const ProcessEvent& event) {
        return write(Frame(ProcessEventJson(event)));
      });
    }
    const json end = followed.ok() ? json::object() : json{{"error", ConnectErrorJson(followed)}};
    write(Envelope(kEnvelopeEndStream, end.dump()));
    sink.done();
    return true;
  });
}

StatusOr<json> SendInput(const E2bDeps& deps, const EnvdCall& call, const json& request) {
  CR_ASSIGN_OR_RETURN(int64_t pid, SelectedPid(deps, call, request));
  const json input = request.value("input", json::object());
  if (!input.is_object() || !input.contains("stdin") || !input["stdin"].is_string()) {
    return InvalidArgumentError("input.stdin (base64) is required; there is no pty");
  }
  CR_ASSIGN_OR_RETURN(std::string bytes, Base64Decode(input["stdin"].get<std::string>()));
  CR_RETURN_IF_ERROR(deps.processes->SendInput(call.sandbox_id, pid, bytes));
  return json::object();
}

StatusOr<json> SendSignal(const E2bDeps& deps, const EnvdCall& call, const json& request) {
  CR_ASSIGN_OR_RETURN(int64_t pid, SelectedPid(deps, call, request));
  const json signal = request.value("signal", json("SIGNAL_SIGKILL"));
  std::string name;
  if (signal == "SIGNAL_SIGKILL" || signal == 9) name = "KILL";
  if (signal == "SIGNAL_SIGTERM" || signal == 15) name = "TERM";
  if (name.empty()) return InvalidArgumentError("signal: SIGNAL_SIGTERM or SIGNAL_SIGKILL");
  CR_RETURN_IF_ERROR(deps.processes->Signal(call.sandbox_id, call.target, pid, name));
  return json::object();
}

}  // namespace

void RegisterProcessRoutes(EnvdRoutes& http, const E2bDeps& deps, const AuthAdapter& auth) {
  const std::string s = kProcessService;
  http.PostRaw(
      s + "Start",
      [deps, auth](const httplib::Request& req, httplib::Response& res) {
        Stream(deps, auth, /*start=*/true, req, res);
      },
      ReplyStreamError);
  http.PostRaw(
      s + "Connect",
      [deps, auth](const httplib::Request& req, httplib::Response& res) {
        Stream(deps, auth, /*start=*/false, req, res);
      },
      ReplyStreamError);
  http.PostRaw(s + "List",
               Unary(deps,
                     [deps](const EnvdCall& call, const json&) {
                       json processes = json::array();
                       for (const auto& info : deps.processes->List(call.sandbox_id)) {
                         processes.push_back(ProcessInfoJson(info));
                       }
                       return StatusOr<json>(json{{"processes", processes}});
                     }),
               ReplyConnectError);
  http.PostRaw(s + "SendInput",
               Unary(deps, [deps](const EnvdCall& call,
                                  const json& request) { return SendInput(deps, call, request); }),
               ReplyConnectError);
  http.PostRaw(s + "SendSignal",
               Unary(deps, [deps](const EnvdCall& call,
                                  const json& request) { return SendSignal(deps, call, request); }),
               ReplyConnectError);
  http.PostRaw(s + "CloseStdin",
               Unary(deps,
                     [deps](const EnvdCall& call, const json& request) -> StatusOr<json> {
                       CR_ASSIGN_OR_RETURN(int64_t pid, SelectedPid(deps, call, request));
                       CR_RETURN_IF_ERROR(deps.processes->CloseInput(call.sandbox_id, pid));
                       return json::object();
                     }),
               ReplyConnectError);
}

}  // namespace coderunner::api::e2b
