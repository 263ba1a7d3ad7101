#include "coderunner/engine/containers.h"

#include "engine_error.h"
#include "resource_util.h"

namespace coderunner::engine {
namespace {

using nlohmann::json;

Status CheckId(const std::string& id) { return CheckPathSegment("container id", id); }

StatusOr<json> ParseBody(const HttpResponse& response, std::string_view operation) {
  json j = json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return InternalError(
        std::string(operation) + ": engine sent invalid JSON: " + EngineMessage(response.body),
        "engine_bad_response");
  }
  return j;
}

}  // namespace

StatusOr<std::string> ContainerClient::Create(const json& spec, const std::string& name) {
  CR_RETURN_IF_ERROR(CheckId(name));
  HttpRequest req{"POST", "/containers/create?name=" + name, spec.dump(), timeout_};
  CR_ASSIGN_OR_RETURN(HttpResponse resp, transport_.Do(req));
  // Podman 4.3 answers a name clash with 500 "... name is already in use"
  // where Docker answers 409.
  if (resp.status == 500 && EngineMessage(resp.body).find("already in use") != std::string::npos) {
    resp.status = 409;
  }
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "create container", StatusCode::kAlreadyExists));
  CR_ASSIGN_OR_RETURN(json body, ParseBody(resp, "create container"));
  if (!body.contains("Id") || !body["Id"].is_string()) {
    return InternalError("create container: engine answer has no Id", "engine_bad_response");
  }
  return body["Id"].get<std::string>();
}

Status ContainerClient::Start(const std::string& id) {
  CR_RETURN_IF_ERROR(CheckId(id));
  CR_ASSIGN_OR_RETURN(HttpResponse resp,
                      transport_.Do({"POST", "/containers/" + id + "/start", "", timeout_}));
  if (resp.status == 304) return OkStatus();  // Already started.
  return StatusFromEngine(resp, "start container");
}

Status ContainerClient::Attach(const std::string& id, const ChunkSink& sink,
                               const std::function<void()>& on_attached,
                               std::chrono::milliseconds timeout, StreamAbort* abort) {
  CR_RETURN_IF_ERROR(CheckId(id));
  // No "Upgrade: tcp" header: both engines then answer a plain 200 and
  // stream the raw multiplexed body until the container's stdio closes,
  // which libcurl reads as a body delimited by connection close. With the
  // header they answer 101, which curl would treat as informational.
  HttpRequest req{"POST", "/containers/" + id + "/attach?stream=1&stdout=1&stderr=1", "", timeout};
  bool attached = false;
  bool error_status = false;
  std::string error_body;
  auto on_response = [&](long status) {
    if (status >= 200 && status < 300) {
      attached = true;
      if (on_attached) on_attached();
    } else {
      error_status = true;
    }
  };
  auto guarded_sink = [&](std::string_view chunk) {
    if (error_status) {
      if (error_body.size() < 4096) error_body.append(chunk.substr(0, 4096));
      return true;
    }
    return sink(chunk);
  };
  auto result = transport_.Stream(req, guarded_sink, on_response, abort);
  if (!result.ok()) return result.status().WithContext("attach container");
  if (!attached) return StatusFromEngine({result->status, error_body}, "attach container");
  return OkStatus();
}

StatusOr<int> ContainerClient::Wait(const std::string& id, std::chrono::milliseconds timeout) {
  CR_RETURN_IF_ERROR(CheckId(id));
  CR_ASSIGN_OR_RETURN(HttpResponse resp,
                      transport_.Do({"POST", "/containers/" + id + "/wait", "", timeout}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "wait container"));
  CR_ASSIGN_OR_RETURN(json body, ParseBody(resp, "wait container"));
  if (!body.contains("StatusCode") || !body["StatusCode"].is_number_integer()) {
    return InternalError("wait container: answer has no StatusCode", "engine_bad_response");
  }
  return body["StatusCode"].get<int>();
}

StatusOr<ContainerState> ContainerClient::Inspect(const std::string& id) {
  CR_RETURN_IF_ERROR(CheckId(id));
  CR_ASSIGN_OR_RETURN(HttpResponse resp,
                      transport_.Do({"GET", "/containers/" + id + "/json", "", timeout_}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "inspect container"));
  CR_ASSIGN_OR_RETURN(json body, ParseBody(resp, "inspect container"));
  // The body is the engine's; a field of the wrong type must not crash us.
  try {
    return StateFrom(body);
  } catch (const json::exception& e) {
    return InternalError(std::string("inspect container: unexpected answer: ") + e.what(),
                         "engine_bad_response");
  }
}

StatusOr<std::string> ContainerClient::OciRuntime(const std::string& id) {
  CR_RETURN_IF_ERROR(CheckId(id));
  CR_ASSIGN_OR_RETURN(HttpResponse resp,
                      transport_.Do({"GET", "/containers/" + id + "/json", "", timeout_}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "inspect container"));
  CR_ASSIGN_OR_RETURN(json body, ParseBody(resp, "inspect container"));
  const json* host =
      body.is_object() && body.contains("HostConfig") ? &body["HostConfig"] : nullptr;
  if (host != nullptr && host->is_object() && host->contains("Runtime") &&
      (*host)["Runtime"].is_string()) {
    std::string runtime = (*host)["Runtime"].get<std::string>();
    // "oci" is Podman's placeholder for whatever runtime it uses.
    if (!runtime.empty() && runtime != "oci") return runtime;
  }
  CR_ASSIGN_OR_RETURN(resp,
                      transport_.Do({"GET", "/libpod/containers/" + id + "/json", "", timeout_}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "inspect container (libpod)"));
  CR_ASSIGN_OR_RETURN(body, ParseBody(resp, "inspect container (libpod)"));
  if (body.is_object() && body.contains("OCIRuntime") && body["OCIRuntime"].is_string() &&
      !body["OCIRuntime"].get<std::string>().empty()) {
    return body["OCIRuntime"].get<std::string>();
  }
  return InternalError("inspect container: the engine does not say which OCI runtime runs it",
                       "engine_bad_response");
}

ContainerState ContainerClient::StateFrom(const json& body) {
  ContainerState state;
  state.id = body.value("Id", "");
  state.image_id = body.value("Image", "");
  // Podman's compat API reports the bare hex id; Docker prefixes "sha256:".
  if (!state.image_id.empty() && state.image_id.rfind("sha256:", 0) != 0) {
    state.image_id = "sha256:" + state.image_id;
  }
  const json& st = body.contains("State") && body["State"].is_object() ? body["State"] : json();
  if (st.is_object()) {
    state.status = st.value("Status", "");
    state.running = st.value("Running", false);
    state.exit_code = st.value("ExitCode", 0);
    state.oom_killed = st.value("OOMKilled", false);
  }
  if (body.contains("Config") && body["Config"].is_object()) {
    state.labels = StringMap(body["Config"].value("Labels", json::object()));
  }
  state.raw = body;
  return state;
}

Status ContainerClient::Kill(const std::string& id, const std::string& signal) {
  CR_RETURN_IF_ERROR(CheckId(id));
  CR_ASSIGN_OR_RETURN(
      HttpResponse resp,
      transport_.Do({"POST", "/containers/" + id + "/kill?signal=" + signal, "", timeout_}));
  // 409: not running. Podman answers 500 with "can only kill running
  // containers" in the same situation; both mean the goal already holds.
  if (resp.status == 409) return OkStatus();
  if (resp.status == 500 && EngineMessage(resp.body).find("running") != std::string::npos) {
    return OkStatus();
  }
  return StatusFromEngine(resp, "kill container");
}

Status ContainerClient::Remove(const std::string& id) {
  CR_RETURN_IF_ERROR(CheckId(id));
  CR_ASSIGN_OR_RETURN(
      HttpResponse resp,
      transport_.Do({"DELETE", "/containers/" + id + "?force=1&v=1", "", timeout_}));
  if (resp.status == 404) return OkStatus();
  return StatusFromEngine(resp, "remove container");
}

StatusOr<std::vector<ContainerSummary>> ContainerClient::List(
    const std::map<std::string, std::string>& labels) {
  std::string path = "/containers/json?all=1&" + LabelFilterQuery(labels);
  CR_ASSIGN_OR_RETURN(HttpResponse resp, transport_.Do({"GET", path, "", timeout_}));
  CR_RETURN_IF_ERROR(StatusFromEngine(resp, "list containers"));
  CR_ASSIGN_OR_RETURN(json body, ParseBody(resp, "list containers"));
  std::vector<ContainerSummary> out;
  if (!body.is_array()) return out;
  try {
    for (const json& row : body) {
      if (!row.is_object()) continue;
      ContainerSummary s;
      s.id = row.value("Id", "");
      s.state = row.value("State", "");
      s.labels = StringMap(row.value("Labels", json::object()));
      if (!s.id.empty()) out.push_back(std::move(s));
    }
  } catch (const json::exception& e) {
    return InternalError(std::string("list containers: unexpected answer: ") + e.what(),
                         "engine_bad_response");
  }
  return out;
}

}  // namespace coderunner::engine
