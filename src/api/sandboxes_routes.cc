#include "sandboxes_routes.h"

#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "coderunner/common/ids.h"
#include "coderunner/common/utf8.h"
#include "coderunner/wire/job_json.h"
#include "sandbox_json.h"
#include "sandbox_requests.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// Fleet mode: the answer to a request for `route` on /v1/sandboxes/{id}
// when the sandbox is not held here: its owner's, relayed to the path
// rebuilt from what the route matched (relay_path.h), or 410 state_lost;
// nullopt when it is held here. A relayed execute holds one of the
// caller's long-request slots.
StatusOr<std::optional<Answer>> Relayed(sandboxes::SandboxManager& manager,
                                        OwnerForwarder& forwarder, const AuthAdapter& auth,
                                        SandboxRoute route, const auth::Principal& p,
                                        const httplib::Request& req) {
  SandboxTarget target{route, req.matches[1], ""};
  if (route == SandboxRoute::kFile) target.file = req.matches[2];
  const std::string& id = target.id;
  const bool held = manager.Get(p.tenant, id).status().code() != StatusCode::kNotFound;
  std::shared_ptr<auth::LongRequestLimiter::Lease> slot;
  if (!held && route == SandboxRoute::kExecute) {
    CR_ASSIGN_OR_RETURN(slot, auth.HoldLongRequest(p));
  }
  CR_ASSIGN_OR_RETURN(std::optional<Answer> relayed,
                      forwarder.ForSandbox(p.tenant, target, held, req));
  // A DELETE of a sandbox whose node is gone forgets its placement (the
  // answer stays 410 state_lost: there was nothing left to delete).
  if (relayed && relayed->status == 410 && req.method == "DELETE") {
    CR_RETURN_IF_ERROR(forwarder.Forget(id));
  }
  return relayed;
}

// `handler` for `route` on /v1/sandboxes/{id}: with a forwarder, a sandbox
// not held here goes to its owner first (Relayed).
Handler Owned(sandboxes::SandboxManager& manager, OwnerForwarder* forwarder,
              const AuthAdapter& auth, SandboxRoute route, Handler handler) {
  if (forwarder == nullptr) return handler;
  return [&manager, forwarder, auth, route, handler = std::move(handler)](
             const auth::Principal& p, const httplib::Request& req) -> StatusOr<Answer> {
    CR_ASSIGN_OR_RETURN(std::optional<Answer> relayed,
                        Relayed(manager, *forwarder, auth, route, p, req));
    if (relayed) return std::move(*relayed);
    return handler(p, req);
  };
}

// The same for a handler that reads the body RouteTable parsed.
JsonHandler Owned(sandboxes::SandboxManager& manager, OwnerForwarder* forwarder,
                  const AuthAdapter& auth, SandboxRoute route, JsonHandler handler) {
  if (forwarder == nullptr) return handler;
  return [&manager, forwarder, auth, route, handler = std::move(handler)](
             const auth::Principal& p, const httplib::Request& req,
             const json& body) -> StatusOr<Answer> {
    CR_ASSIGN_OR_RETURN(std::optional<Answer> relayed,
                        Relayed(manager, *forwarder, auth, route, p, req));
    if (relayed) return std::move(*relayed);
    return handler(p, req, body);
  };
}

// GET /v1/sandboxes: this node's sandboxes of the caller's tenant.
StatusOr<Answer> ListAnswer(sandboxes::SandboxManager& manager, const auth::Principal& p,
                            const httplib::Request& req) {
  std::optional<sandboxes::SandboxState> state;
  if (req.has_param("state")) {
    state = sandboxes::ParseState(req.get_param_value("state"));
    if (!state) {
      return InvalidArgumentError("state: must be running, stopped or expired", "invalid_request");
    }
  }
  json out = json::array();
  for (const auto& r : manager.List(p.tenant, state, req.get_param_value("language"))) {
    out.push_back(SandboxJson(r));
  }
  return Answer::Json(200, {{"sandboxes", out}});
}

// POST /v1/sandboxes, from the body as RouteTable parsed it, read once (an
// empty one asks for every default).
StatusOr<Answer> CreateAnswer(sandboxes::SandboxManager& manager, const config::Config& config,
                              OwnerForwarder* forwarder, const auth::Principal& p,
                              const httplib::Request& req, const json& body) {
  if (p.tier == nullptr) return InternalError("tenant without a tier");
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxCreateSpec create,
                      SandboxCreateFromJson(req.body.empty() ? json::object() : body, config,
                                            *p.tier, NewId("sbx")));
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord rec,
                      CreatePlaced(manager, forwarder, p, std::move(create)));
  return Answer::Json(201, SandboxJson(rec));
}

// POST /v1/sandboxes/{id}/execute held here, from the body as RouteTable
// parsed it, read once (an empty one is parsed for its "invalid_json").
StatusOr<Answer> ExecuteAnswer(sandboxes::SandboxManager& manager, const config::Config& config,
                               const AuthAdapter& auth, const auth::Principal& p,
                               const httplib::Request& req, const json& body) {
  const wire::RequestCaps caps = wire::CapsFromConfig(config);
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxCallSpec call, req.body.empty()
                                                           ? ParseSandboxExecute(req.body, caps)
                                                           : SandboxExecuteFromJson(body, caps));
  CR_ASSIGN_OR_RETURN(auto slot, auth.HoldLongRequest(p));
  CR_ASSIGN_OR_RETURN(sandboxes::ExecuteOutcome out, manager.Execute(p, req.matches[1], call));
  return Answer::Json(200, CallJson(out));
}

// POST /v1/sandboxes/{id}/packages: {"python": [...]} or {"npm": [...]},
// installed into the sandbox for the rest of its life, as its `pip
// install` or `npm install` would.
StatusOr<Answer> PackagesAnswer(sandboxes::SandboxManager& manager, const auth::Principal& p,
                                const std::string& id, const json& body) {
  auto bad = [](const std::string& why) {
    return InvalidArgumentError("body " + why, "invalid_request");
  };
  if (!body.is_object() || body.size() != 1) {
    return bad("is {\"python\": [string]} or {\"npm\": [string]}");
  }
  const std::string key = body.begin().key();
  if (key != "python" && key != "npm") return bad("names python or npm packages");
  const json& list = body.begin().value();
  if (!list.is_array() || list.empty()) return bad("lists the packages as strings");
  std::vector<std::string> names;
  for (const auto& n : list) {
    if (!n.is_string()) return bad("lists the packages as strings");
    names.push_back(n.get<std::string>());
  }
  const auto ecosystem = key == "npm" ? packages::Ecosystem::kNpm : packages::Ecosystem::kPython;
  CR_ASSIGN_OR_RETURN(packages::InstalledSet set, manager.AddPackages(p, id, ecosystem, names));
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord rec, manager.Get(p.tenant, id));
  return Answer::Json(200, {{"id", id},
                            {"requested", rec.packages},
                            {"packages",
                             {{key, packages::LockToJson(set.lock)},
                              {"cached", set.cached},
                              {"install_ms", set.install_ms}}}});
}

}  // namespace

StatusOr<sandboxes::SandboxRecord> CreatePlaced(sandboxes::SandboxManager& manager,
                                                OwnerForwarder* forwarder, const auth::Principal& p,
                                                sandboxes::SandboxCreateSpec create) {
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord rec, manager.Create(p, std::move(create)));
  if (forwarder == nullptr) return rec;
  Status placed = forwarder->PlaceHere(p.tenant, rec.id);
  if (!placed.ok()) {
    (void)manager.Delete(p.tenant, rec.id);
    return placed;
  }
  return rec;
}

void RegisterSandboxRoutes(RouteTable& http, sandboxes::SandboxManager& manager,
                           const config::Config& config, const AuthAdapter& auth,
                           OwnerForwarder* forwarder) {
  const std::string id_re = "(sbx-[0-9a-f]{24})";
  auto owned = [&manager, forwarder, &auth](Handler h, SandboxRoute route) {
    return auth.Wrap(Owned(manager, forwarder, auth, route, std::move(h)));
  };

  http.Post("/v1/sandboxes", auth.WrapJson([&manager, &config, forwarder](
                                               const auth::Principal& p,
                                               const httplib::Request& req, const json& body) {
    return CreateAnswer(manager, config, forwarder, p, req, body);
  }));

  http.Get("/v1/sandboxes",
           auth.Wrap([&manager](const auth::Principal& p, const httplib::Request& req) {
             return ListAnswer(manager, p, req);
           }));

  http.Get(
      "/v1/sandboxes/" + id_re,
      owned(
          [&manager](const auth::Principal& p, const httplib::Request& req) -> StatusOr<Answer> {
            CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord rec,
                                manager.Get(p.tenant, req.matches[1]));
            return Answer::Json(200, SandboxJson(rec));
          },
          SandboxRoute::kRecord));

  http.Post("/v1/sandboxes/" + id_re + "/execute",
            auth.WrapJson(Owned(manager, forwarder, auth, SandboxRoute::kExecute,
                                JsonHandler([&manager, &config, auth](const auth::Principal& p,
                                                                      const httplib::Request& req,
                                                                      const json& body) {
                                  return ExecuteAnswer(manager, config, auth, p, req, body);
                                }))));

  http.Post(
      "/v1/sandboxes/" + id_re + "/packages",
      auth.WrapJson(Owned(manager, forwarder, auth, SandboxRoute::kPackages,
                          JsonHandler([&manager](const auth::Principal& p,
                                                 const httplib::Request& req, const json& body) {
                            return PackagesAnswer(manager, p, req.matches[1], body);
                          }))));

  http.Get(
      "/v1/sandboxes/" + id_re + "/files",
      owned(
          [&manager](const auth::Principal& p, const httplib::Request& req) -> StatusOr<Answer> {
            CR_ASSIGN_OR_RETURN(std::vector<isolation::Artifact> files,
                                manager.Files(p.tenant, req.matches[1]));
            return Answer::Json(200, {{"id", req.matches[1]}, {"files", FilesJson(files)}});
          },
          SandboxRoute::kFiles));

  http.Get(
      "/v1/sandboxes/" + id_re + "/files/(.+)",
      owned(
          [&manager](const auth::Principal& p, const httplib::Request& req) -> StatusOr<Answer> {
            CR_ASSIGN_OR_RETURN(isolation::UniqueFd fd,
                                manager.OpenFile(p.tenant, req.matches[1], req.matches[2]));
            return Answer::File(std::move(fd), req.matches[2].str(),
                                InternalError("stat sandbox file", "sandbox_io"));
          },
          SandboxRoute::kFile));

  http.Delete("/v1/sandboxes/" + id_re,
              owned(
                  [&manager, forwarder](const auth::Principal& p,
                                        const httplib::Request& req) -> StatusOr<Answer> {
                    std::string id = req.matches[1];
                    CR_RETURN_IF_ERROR(manager.Delete(p.tenant, id));
                    if (forwarder != nullptr) CR_RETURN_IF_ERROR(forwarder->Forget(id));
                    return Answer::Json(200, {{"id", id}, {"deleted", true}});
                  },
                  SandboxRoute::kRecord));
}

}  // namespace coderunner::api
