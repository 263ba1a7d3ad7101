// E2B's control plane: sandboxes created, connected to, listed, described,
// given a new timeout and killed, for the tenant of the X-API-Key.
#include <httplib.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "coderunner/common/ids.h"
#include "e2b/e2b_contexts.h"
#include "e2b/e2b_json.h"
#include "e2b/e2b_relay.h"
#include "e2b/e2b_routes.h"
#include "http_reply.h"
#include "http_status.h"
#include "owner_forwarder.h"
#include "sandbox_requests.h"
#include "sandboxes_routes.h"

namespace coderunner::api::e2b {
namespace {

using nlohmann::json;

constexpr char kSandboxPattern[] = "/e2b/sandboxes/(sbx-[0-9a-f]{24})";
constexpr char kSandboxV2Pattern[] = "/e2b/v2/sandboxes/(sbx-[0-9a-f]{24})";
// E2B's own default lifetime of a sandbox, s.
constexpr int64_t kDefaultTimeoutS = 300;
constexpr size_t kDefaultPage = 100;
constexpr size_t kMaxPage = 1000;
// The templates every E2B SDK names by default.
const char* const kDefaultTemplates[] = {"base", "code-interpreter-v1"};

// The control plane's errors: {"code": <status>, "message"}, which the
// SDK reads (404 means "not found").
void ReplyControlError(httplib::Response& res, const Status& status) {
  const int http = HttpStatusFor(status);
  Reply(res, http, ControlErrorJson(http, status));
}

std::map<std::string, std::string> StringMapField(const json& body, const char* name) {
  std::map<std::string, std::string> out;
  auto it = body.find(name);
  if (it == body.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

// Every field the SDKs send at creation; any other is refused by name.
const char* const kCreateFields[] = {
    "templateID", "timeout", "metadata",     "envVars",   "allow_internet_access",
    "network",    "mcp",     "volumeMounts", "autoPause", "autoPauseMemory",
    "autoResume", "iam",     "secure"};

// The body's fields are known and of their type.
Status CheckCreateBody(const json& body) {
  if (!body.is_object())
    return InvalidArgumentError("the body must be a JSON object", "invalid_request");
  for (const auto& item : body.items()) {
    const std::string& name = item.key();
    if (std::find_if(std::begin(kCreateFields), std::end(kCreateFields),
                     [&](const char* f) { return name == f; }) == std::end(kCreateFields)) {
      return InvalidArgumentError("unknown field " + name.substr(0, 64), "invalid_request");
    }
  }
  if (body.contains("templateID") && !body["templateID"].is_string()) {
    return InvalidArgumentError("templateID must be a string", "invalid_request");
  }
  if (body.contains("timeout") && !body["timeout"].is_number_integer()) {
    return InvalidArgumentError("timeout must be a whole number of seconds", "invalid_request");
  }
  for (const char* map : {"metadata", "envVars"}) {
    if (!body.contains(map) || body[map].is_null()) continue;
    if (!body[map].is_object()) {
      return InvalidArgumentError(std::string(map) + " must be an object", "invalid_request");
    }
    for (const auto& [k, v] : body[map].items()) {
      if (!v.is_string()) {
        return InvalidArgumentError(std::string(map) + "." + k.substr(0, 64) + " must be a string",
                                    "invalid_request");
      }
    }
  }
  return OkStatus();
}

// What E2B offers that a coderunner sandbox cannot be: refused by name.
Status RefuseUnsupported(const json& body) {
  if (body.contains("allow_internet_access") && body["allow_internet_access"] == true) {
    return InvalidArgumentError("coderunner sandboxes have no network (allow_internet_access)",
                                kReasonE2bUnsupported);
  }
  for (const char* field : {"network", "mcp", "volumeMounts", "autoPause", "autoResume"}) {
    if (body.contains(field) && !body[field].is_null()) {
      return InvalidArgumentError(std::string(field) + " is not available on coderunner",
                                  kReasonE2bUnsupported);
    }
  }
  if (body.contains("metadata") && body["metadata"].is_object()) {
    for (const auto& item : body["metadata"].items()) {
      const std::string& key = item.key();
      if (key.starts_with(kReservedMetadataPrefix)) {
        return InvalidArgumentError("metadata keys under " + std::string(kReservedMetadataPrefix) +
                                        " are coderunner's: " + key,
                                    "invalid_request");
      }
    }
  }
  return OkStatus();
}

StatusOr<Answer> Create(const E2bDeps& deps, const auth::Principal& who, const json& body) {
  CR_RETURN_IF_ERROR(CheckCreateBody(body));
  CR_RETURN_IF_ERROR(RefuseUnsupported(body));
  const std::string template_id = body.value("templateID", std::string(kDefaultTemplates[0]));
  const bool default_template =
      std::find(std::begin(kDefaultTemplates), std::end(kDefaultTemplates), template_id) !=
      std::end(kDefaultTemplates);
  json create = {{"language", default_template ? deps.config->e2b.template_language : template_id},
                 {"ttl_s", body.value("timeout", kDefaultTimeoutS)}};
  if (who.tier == nullptr) return InternalError("no tier for tenant " + who.tenant);
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxCreateSpec spec,
                      SandboxCreateFromJson(create, *deps.config, *who.tier, NewId("sbx")));
  spec.spec.home_bytes = deps.config->e2b.home_bytes;
  spec.template_id = template_id;
  spec.metadata = StringMapField(body, "metadata");
  spec.envs = StringMapField(body, "envVars");
  spec.access_token = NewId("tok") + NewId("en");  // 192 random bits.
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord record,
                      CreatePlaced(*deps.sandboxes, deps.forwarder, who, std::move(spec)));
  return Answer::Json(201, SandboxCreatedJson(record));
}

// A sandbox of `who` that is running; NotFound (the SDK's "not found")
// for one that ended.
StatusOr<sandboxes::SandboxRecord> Running(const E2bDeps& deps, const auth::Principal& who,
                                           const std::string& id) {
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord record, deps.sandboxes->Get(who.tenant, id));
  if (record.state != sandboxes::SandboxState::kRunning) {
    return NotFoundError("sandbox " + id + " is " + std::string(StateName(record.state)),
                         sandboxes::kReasonSandboxNotFound);
  }
  return record;
}

StatusOr<Answer> Connect(const E2bDeps& deps, const auth::Principal& who, const std::string& id,
                         const json& body) {
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord record, Running(deps, who, id));
  if (body.is_object() && body.contains("timeout") && body["timeout"].is_number_integer()) {
    CR_ASSIGN_OR_RETURN(record, deps.sandboxes->SetTtl(who, id, body["timeout"].get<int64_t>()));
  }
  return Answer::Json(200, SandboxCreatedJson(record));
}

// metadata=k1%3Dv1%26k2%3Dv2 as the SDK sends it: form-encoded pairs,
// each key and value percent-encoded once more.
std::map<std::string, std::string> MetadataFilter(const std::string& query) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i < query.size()) {
    size_t amp = query.find('&', i);
    if (amp == std::string::npos) amp = query.size();
    std::string pair = query.substr(i, amp - i);
    size_t eq = pair.find('=');
    if (eq != std::string::npos) {
      std::string k = httplib::detail::decode_url(pair.substr(0, eq), true);
      std::string v = httplib::detail::decode_url(pair.substr(eq + 1), true);
      out[httplib::detail::decode_url(k, false)] = httplib::detail::decode_url(v, false);
    }
    i = amp + 1;
  }
  return out;
}

StatusOr<Answer> List(const E2bDeps& deps, const auth::Principal& who,
                      const httplib::Request& req) {
  const std::string state = req.get_param_value("state");
  const bool running_asked = state.empty() || state.find("running") != std::string::npos;
  const auto filter = MetadataFilter(req.get_param_value("metadata"));
  const std::string template_id = req.get_param_value("template");
  size_t limit = kDefaultPage;
  if (req.has_param("limit")) {
    limit = std::clamp<size_t>(std::strtoull(req.get_param_value("limit").c_str(), nullptr, 10), 1,
                               kMaxPage);
  }
  const size_t from = std::strtoull(req.get_param_value("nextToken").c_str(), nullptr, 10);
  json page = json::array();
  size_t seen = 0;
  bool more = false;
  if (running_asked) {
    for (const auto& record :
         deps.sandboxes->List(who.tenant, sandboxes::SandboxState::kRunning, "")) {
      // A code context's sandbox (e2b_contexts.h) is not one of the SDK's.
      bool match = !record.metadata.count(kContextOf) &&
                   (template_id.empty() || record.template_id == template_id);
      for (const auto& [k, v] : filter) {
        auto it = record.metadata.find(k);
        match = match && it != record.metadata.end() && it->second == v;
      }
      if (!match || seen++ < from) continue;
      if (page.size() == limit) {
        more = true;
        break;
      }
      page.push_back(SandboxInfoJson(record));
    }
  }
  Answer answer = Answer::Json(200, std::move(page));
  if (more) answer.WithHeader("X-Next-Token", std::to_string(from + limit));
  return answer;
}

}  // namespace

void RegisterControlRoutes(RouteTable& http, const E2bDeps& deps, const AuthAdapter& base_auth) {
  const AuthAdapter auth = base_auth.WithErrors(ReplyControlError);
  http.Post("/e2b/v2/sandboxes",
            auth.WrapJson([deps](const auth::Principal& who, const httplib::Request&,
                                 const json& body) { return Create(deps, who, body); }));
  http.Get("/e2b/v2/sandboxes",
           auth.Wrap([deps](const auth::Principal& who, const httplib::Request& req) {
             return List(deps, who, req);
           }));
  const std::string connect = std::string(kSandboxV2Pattern) + "/connect";
  http.Post(connect,
            auth.WrapJson(OwnedByTenant(
                deps, connect,
                [deps](const auth::Principal& who, const httplib::Request& req, const json& body) {
                  return Connect(deps, who, req.matches[1], body);
                })));
  http.Get(kSandboxPattern,
           auth.Wrap(OwnedByTenant(
               deps, kSandboxPattern,
               [deps](const auth::Principal& who, const httplib::Request& req) -> StatusOr<Answer> {
                 CR_ASSIGN_OR_RETURN(sandboxes::SandboxRecord record,
                                     Running(deps, who, req.matches[1]));
                 return Answer::Json(200, SandboxInfoJson(record));
               })));
  const std::string timeout = std::string(kSandboxPattern) + "/timeout";
  http.Post(timeout,
            auth.WrapJson(OwnedByTenant(
                deps, timeout,
                [deps](const auth::Principal& who, const httplib::Request& req,
                       const json& body) -> StatusOr<Answer> {
                  if (!body.is_object() || !body.contains("timeout") ||
                      !body["timeout"].is_number_integer() || body["timeout"].get<int64_t>() < 1) {
                    return InvalidArgumentError("timeout: a number of seconds (>= 1) is required");
                  }
                  CR_RETURN_IF_ERROR(Running(deps, who, req.matches[1]).status());
                  CR_RETURN_IF_ERROR(
                      deps.sandboxes->SetTtl(who, req.matches[1], body["timeout"].get<int64_t>())
                          .status());
                  return Answer::Text(204, "");
                })));
  http.Delete(kSandboxPattern,
              auth.Wrap(OwnedByTenant(deps, kSandboxPattern,
                                      [deps](const auth::Principal& who,
                                             const httplib::Request& req) -> StatusOr<Answer> {
                                        const std::string id = req.matches[1];
                                        CR_RETURN_IF_ERROR(deps.sandboxes->Delete(who.tenant, id));
                                        deps.processes->Forget(id);
                                        DeleteContextsOf(deps, who.tenant, id);
                                        if (deps.forwarder != nullptr)
                                          CR_RETURN_IF_ERROR(deps.forwarder->Forget(id));
                                        return Answer::Text(204, "");
                                      })));
}

}  // namespace coderunner::api::e2b
