// The code interpreter's contexts (e2b_contexts.h): listed, made, removed
// and restarted. The sandbox's own interpreter is the context whose id is
// its language; it is neither removed nor restarted here.
#include <httplib.h>

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/ids.h"
#include "e2b/e2b_contexts.h"
#include "e2b/e2b_envd.h"
#include "e2b/e2b_relay.h"
#include "http_reply.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;

// The default language of a context the SDK makes without naming one.
constexpr char kDefaultContextLanguage[] = "python";
constexpr char kHome[] = "/home/user";

// The caller's sandbox (running), as ResolveEnvdCall checked it.
struct Caller {
  EnvdCall call;
  sandboxes::SandboxRecord parent;
};

StatusOr<Caller> CallerOf(const E2bDeps& deps, const httplib::Request& req) {
  CR_ASSIGN_OR_RETURN(EnvdCall call, ResolveEnvdCall(deps, req));
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord parent,
                      deps.sandboxes->Get(call.who.tenant, call.sandbox_id));
  return Caller{std::move(call), std::move(parent)};
}

Status RefuseDefault(const Caller& c, const std::string& what) {
  return InvalidArgumentError("context " + DefaultContextId(c.parent) + " is sandbox " +
                                  c.parent.id + "'s own interpreter: it is not " + what +
                                  " (kill the sandbox, or make a context of your own)",
                              kReasonE2bUnsupported);
}

void ListContexts(const E2bDeps& deps, const httplib::Request& req, httplib::Response& res) {
  auto c = CallerOf(deps, req);
  if (!c.ok()) return ReplyCodeError(res, c.status());
  json out = json::array({ContextJson(c->parent, true)});
  for (const auto& context : ContextsOf(deps, c->call.who.tenant, c->parent.id)) {
    out.push_back(ContextJson(context, false));
  }
  Reply(res, 200, out);
}

StatusOr<json> CreateContextOf(const E2bDeps& deps, const httplib::Request& req) {
  CR_ASSIGN_OR_RETURN(Caller c, CallerOf(deps, req));
  CR_ASSIGN_OR_RETURN(
      json body, ParseBoundedJson(req.body.empty() ? "{}" : req.body, BodyBounds(*deps.config)));
  if (!body.is_object())
    return InvalidArgumentError("the body must be an object", "invalid_request");
  const json language = body.value("language", json(kDefaultContextLanguage));
  const json cwd = body.value("cwd", json(kHome));
  if (!language.is_string() || !cwd.is_string()) {
    return InvalidArgumentError("language and cwd are strings", "invalid_request");
  }
  if (cwd.get<std::string>() != kHome) {
    return InvalidArgumentError("a context's cwd is /home/user", kReasonE2bUnsupported);
  }
  CR_ASSIGN_OR_RETURN(
      sandboxes::SandboxRecord made,
      CreateContext(deps, c.call.who, c.parent, CoderunnerLanguage(language.get<std::string>()),
                    NewId("sbx"), false));
  return ContextJson(made, false);
}

// Removes context `id`; with `restart`, makes it again under the same id
// (fresh state, same language).
Status RemoveOrRestart(const E2bDeps& deps, const httplib::Request& req, bool restart) {
  CR_ASSIGN_OR_RETURN(Caller c, CallerOf(deps, req));
  const std::string id = req.matches[1];
  if (id == DefaultContextId(c.parent)) return RefuseDefault(c, restart ? "restarted" : "removed");
  const std::string& tenant = c.call.who.tenant;
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord context, ContextOf(deps, tenant, c.parent.id, id));
  CR_RETURN_IF_ERROR(deps.sandboxes->Delete(tenant, id));
  if (!restart) return OkStatus();
  const bool language_default = context.metadata.count(kLanguageDefault) > 0;
  return CreateContext(deps, c.call.who, c.parent, context.language, id, language_default).status();
}

}  // namespace

void RegisterContextRoutes(EnvdRoutes& http, const E2bDeps& deps) {
  http.Get(
      "/e2b/contexts",
      [deps](const httplib::Request& req, httplib::Response& res) { ListContexts(deps, req, res); },
      ReplyCodeError);
  http.PostRaw(
      "/e2b/contexts",
      [deps](const httplib::Request& req, httplib::Response& res) {
        auto made = CreateContextOf(deps, req);
        if (!made.ok()) return ReplyCodeError(res, made.status());
        Reply(res, 200, *made);
      },
      ReplyCodeError);
  for (const bool restart : {false, true}) {
    auto handler = [deps, restart](const httplib::Request& req, httplib::Response& res) {
      Status s = RemoveOrRestart(deps, req, restart);
      if (!s.ok()) return ReplyCodeError(res, s);
      res.status = 204;
    };
    if (restart) {
      http.PostRaw(R"(/e2b/contexts/([^/]+)/restart)", handler, ReplyCodeError);
    } else {
      http.DeleteRaw(R"(/e2b/contexts/([^/]+))", handler, ReplyCodeError);
    }
  }
}

}  // namespace coderunner::api::e2b
