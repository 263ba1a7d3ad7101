// filesystem.Filesystem and /files: a sandbox's files read, written,
// listed, made, moved and removed, inside its container as its uid.
#include <httplib.h>

#include "e2b/e2b_envd.h"
#include "e2b/e2b_json.h"
#include "e2b/e2b_relay.h"
#include "e2b/e2b_routes.h"
#include "http_reply.h"
#include "http_status.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;

constexpr char kFilesystemService[] = "/e2b/filesystem.Filesystem/";
// The deepest listing ListDir makes.
constexpr int kMaxDepth = 64;
// What envd answers /health with when its sandbox is gone.
constexpr int kSandboxGoneStatus = 502;

// /files' errors: {"code": <status>, "message"}, which the SDK maps (404:
// file not found, 507: not enough space).
void ReplyFilesError(httplib::Response& res, const Status& status) {
  const int http = HttpStatusFor(status);
  Reply(res, http, ControlErrorJson(http, status));
}

StatusOr<std::string> PathField(const json& request, const char* name) {
  auto it = request.find(name);
  if (it == request.end() || !it->is_string()) {
    return InvalidArgumentError(std::string(name) + ": a path is required");
  }
  return it->get<std::string>();
}

json WrittenJson(const sandboxes::EntryInfo& entry) {
  return {{"name", entry.name}, {"type", "file"}, {"path", entry.path}};
}

void ReadFile(const E2bDeps& deps, const httplib::Request& req, httplib::Response& res) {
  auto call = ResolveEnvdCall(deps, req);
  if (!call.ok()) return ReplyFilesError(res, call.status());
  auto data = deps.files->Read(call->target, req.get_param_value("path"));
  if (!data.ok()) return ReplyFilesError(res, data.status());
  res.status = 200;
  res.set_content(std::move(*data), "application/octet-stream");
}

// Multipart (a part named "file" per file, its filename the path; one file
// may take its path from ?path=) or one file's raw bytes with ?path=.
void WriteFiles(const E2bDeps& deps, const httplib::Request& req, httplib::Response& res) {
  auto call = ResolveEnvdCall(deps, req);
  if (!call.ok()) return ReplyFilesError(res, call.status());
  std::vector<std::pair<std::string, const std::string*>> files;
  const std::string query_path = req.get_param_value("path");
  if (req.is_multipart_form_data()) {
    for (const auto& [name, part] : req.files) {
      if (name != "file") continue;
      files.emplace_back(part.filename.empty() ? query_path : part.filename, &part.content);
    }
    if (files.size() == 1 && !query_path.empty()) files[0].first = query_path;
  } else {
    files.emplace_back(query_path, &req.body);
  }
  if (files.empty()) {
    return ReplyFilesError(res, InvalidArgumentError("no file: send a multipart part named file"));
  }
  json written = json::array();
  for (const auto& [path, content] : files) {
    if (static_cast<int64_t>(content->size()) > deps.config->e2b.max_file_bytes) {
      return ReplyFilesError(
          res, ResourceExhaustedError(path + " is over e2b.max_file_bytes", "limit_exceeded"));
    }
    auto entry = deps.files->Write(call->target, path, *content);
    if (!entry.ok()) return ReplyFilesError(res, entry.status());
    written.push_back(WrittenJson(*entry));
  }
  Reply(res, 200, written);
}

// /health's answer for a sandbox that is gone (or was never there) is
// envd's: 502.
void ReplyHealthError(httplib::Response& res, const Status& status) {
  ReplyFilesError(res, status);
  if (status.code() == StatusCode::kNotFound || status.code() == StatusCode::kFailedPrecondition) {
    res.status = kSandboxGoneStatus;
  }
}

// GET /health: 204 while the sandbox runs, envd's 502 once it is gone.
void RegisterHealthRoute(EnvdRoutes& http, const E2bDeps& deps) {
  http.Get(
      "/e2b/health",
      [deps](const httplib::Request& req, httplib::Response& res) {
        auto call = ResolveEnvdCall(deps, req);
        if (call.ok()) {
          res.status = 204;
        } else {
          ReplyHealthError(res, call.status());
        }
      },
      ReplyHealthError);
}

StatusOr<json> EntryAnswer(StatusOr<sandboxes::EntryInfo> entry) {
  CR_RETURN_IF_ERROR(entry.status());
  return json{{"entry", EntryJson(*entry)}};
}

}  // namespace

void RegisterFilesRoutes(EnvdRoutes& http, const E2bDeps& deps) {
  http.Get(
      "/e2b/files",
      [deps](const httplib::Request& req, httplib::Response& res) { ReadFile(deps, req, res); },
      ReplyFilesError);
  http.PostRaw(
      "/e2b/files",
      [deps](const httplib::Request& req, httplib::Response& res) { WriteFiles(deps, req, res); },
      ReplyFilesError);
  RegisterHealthRoute(http, deps);
  const std::string s = kFilesystemService;
  http.PostRaw(s + "Stat",
               Unary(deps,
                     [deps](const EnvdCall& call, const json& request) {
                       auto path = PathField(request, "path");
                       if (!path.ok()) return StatusOr<json>(path.status());
                       return EntryAnswer(deps.files->Stat(call.target, *path));
                     }),
               ReplyConnectError);
  http.PostRaw(s + "MakeDir",
               Unary(deps,
                     [deps](const EnvdCall& call, const json& request) {
                       auto path = PathField(request, "path");
                       if (!path.ok()) return StatusOr<json>(path.status());
                       return EntryAnswer(deps.files->MakeDir(call.target, *path));
                     }),
               ReplyConnectError);
  http.PostRaw(s + "Move",
               Unary(deps,
                     [deps](const EnvdCall& call, const json& request) -> StatusOr<json> {
                       CR_ASSIGN_OR_RETURN(std::string from, PathField(request, "source"));
                       CR_ASSIGN_OR_RETURN(std::string to, PathField(request, "destination"));
                       return EntryAnswer(deps.files->Move(call.target, from, to));
                     }),
               ReplyConnectError);
  http.PostRaw(s + "Remove",
               Unary(deps,
                     [deps](const EnvdCall& call, const json& request) -> StatusOr<json> {
                       CR_ASSIGN_OR_RETURN(std::string path, PathField(request, "path"));
                       CR_RETURN_IF_ERROR(deps.files->Remove(call.target, path));
                       return json::object();
                     }),
               ReplyConnectError);
  http.PostRaw(
      s + "ListDir",
      Unary(deps,
            [deps](const EnvdCall& call, const json& request) -> StatusOr<json> {
              CR_ASSIGN_OR_RETURN(std::string path, PathField(request, "path"));
              const json depth_field = request.value("depth", json(1));
              if (!depth_field.is_number_integer() || depth_field.get<int64_t>() < 1 ||
                  depth_field.get<int64_t>() > kMaxDepth) {
                return InvalidArgumentError("depth must be 1.." + std::to_string(kMaxDepth));
              }
              const int depth = depth_field.get<int>();
              CR_ASSIGN_OR_RETURN(auto entries, deps.files->List(call.target, path, depth));
              json out = json::array();
              for (const auto& e : entries) {
                if (e.type != sandboxes::EntryType::kOther) out.push_back(EntryJson(e));
              }
              return json{{"entries", out}};
            }),
      ReplyConnectError);
  http.PostRaw(
      s + "WatchDir",
      [deps](const httplib::Request& req, httplib::Response& res) {
        auto call = ResolveEnvdCall(deps, req);
        ReplyStreamError(
            res, !call.ok() ? call.status()
                            : FailedPreconditionError("watching a directory is not available yet",
                                                      kReasonE2bUnsupported));
      },
      ReplyStreamError);
}

}  // namespace coderunner::api::e2b
