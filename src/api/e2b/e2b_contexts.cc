#include "e2b/e2b_contexts.h"

#include <algorithm>

#include "coderunner/common/ids.h"
#include "e2b/e2b_json.h"
#include "http_reply.h"
#include "http_status.h"
#include "sandbox_requests.h"

namespace coderunner::api::e2b {
namespace {

// The SDK's names of languages, where they are not coderunner's.
constexpr std::pair<const char*, const char*> kLanguageAliases[] = {{"js", "javascript"},
                                                                    {"ts", "typescript"}};
// Where a context's code runs: its sandbox's writable home.
constexpr char kContextCwd[] = "/home/user";

}  // namespace

std::string DefaultContextId(const sandboxes::SandboxRecord& parent) { return parent.language; }

std::string CoderunnerLanguage(const std::string& name) {
  for (const auto& [alias, language] : kLanguageAliases) {
    if (name == alias) return language;
  }
  return name;
}

nlohmann::json ContextJson(const sandboxes::SandboxRecord& record, bool is_default) {
  return {{"id", is_default ? DefaultContextId(record) : record.id},
          {"language", record.language},
          {"cwd", kContextCwd}};
}

void ReplyCodeError(httplib::Response& res, const Status& status) {
  const int http = HttpStatusFor(status);
  Reply(res, http, ControlErrorJson(http, status));
}

StatusOr<sandboxes::SandboxRecord> CreateContext(const E2bDeps& deps, const auth::Principal& who,
                                                 const sandboxes::SandboxRecord& parent,
                                                 const std::string& language, const std::string& id,
                                                 bool language_default) {
  if (who.tier == nullptr) return InternalError("no tier for tenant " + who.tenant);
  const nlohmann::json create = {{"language", language}, {"ttl_s", parent.ttl_s}};
  CR_ASSIGN_OR_RETURN(sandboxes::SandboxCreateSpec spec,
                      SandboxCreateFromJson(create, *deps.config, *who.tier, id));
  spec.spec.home_bytes = parent.home_bytes;
  spec.template_id = language;
  spec.metadata = {{kContextOf, parent.id}};
  if (language_default) spec.metadata[kLanguageDefault] = language;
  spec.envs = parent.envs;
  spec.fixed_id = true;  // A restarted context keeps its id.
  return deps.sandboxes->Create(who, spec);
}

std::vector<sandboxes::SandboxRecord> ContextsOf(const E2bDeps& deps, const std::string& tenant,
                                                 const std::string& parent_id) {
  std::vector<sandboxes::SandboxRecord> out;
  for (auto& record : deps.sandboxes->List(tenant, sandboxes::SandboxState::kRunning, "")) {
    auto it = record.metadata.find(kContextOf);
    if (it != record.metadata.end() && it->second == parent_id) out.push_back(std::move(record));
  }
  std::reverse(out.begin(), out.end());  // List is newest first.
  return out;
}

StatusOr<sandboxes::SandboxRecord> ContextOf(const E2bDeps& deps, const std::string& tenant,
                                             const std::string& parent_id, const std::string& id) {
  for (auto& record : ContextsOf(deps, tenant, parent_id)) {
    if (record.id == id) return std::move(record);
  }
  return NotFoundError("sandbox " + parent_id + " has no context " + id,
                       sandboxes::kReasonSandboxNotFound);
}

void DeleteContextsOf(const E2bDeps& deps, const std::string& tenant,
                      const std::string& parent_id) {
  for (const auto& record : ContextsOf(deps, tenant, parent_id)) {
    (void)deps.sandboxes->Delete(tenant, record.id);
  }
}

}  // namespace coderunner::api::e2b
