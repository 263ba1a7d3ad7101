// The code interpreter's contexts beyond a sandbox's own interpreter: each
// is a sandbox of its own (its language, fresh state), made for the E2B
// sandbox and marked as its context (metadata kContextOf); its id is the
// context's id. Private to src/api.
#ifndef CODERUNNER_API_E2B_E2B_CONTEXTS_H_
#define CODERUNNER_API_E2B_E2B_CONTEXTS_H_

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/auth/authenticator.h"
#include "coderunner/common/status.h"
#include "coderunner/sandboxes/sandbox_record.h"
#include "e2b/e2b_routes.h"

namespace coderunner::api::e2b {

// The metadata key that marks a context's sandbox with the E2B sandbox it
// serves. Keys under "coderunner." are the service's: create refuses them.
inline constexpr char kContextOf[] = "coderunner.context_of";
inline constexpr char kReservedMetadataPrefix[] = "coderunner.";
// Marks the context runCode made for a language no context was named for.
inline constexpr char kLanguageDefault[] = "coderunner.language_default";

// The id of a sandbox's own interpreter as a context: its language.
std::string DefaultContextId(const sandboxes::SandboxRecord& parent);
// coderunner's name of an SDK language name ("js" is "javascript").
std::string CoderunnerLanguage(const std::string& name);
// A context as the SDK reads it: {id, language, cwd}. `is_default`: the
// sandbox's own interpreter.
nlohmann::json ContextJson(const sandboxes::SandboxRecord& record, bool is_default);
// The code interpreter's errors: {"code": <status>, "message"} under the
// status (404 is the SDK's NotFoundError).
void ReplyCodeError(httplib::Response& res, const Status& status);

// A new context `id` of `language` for `parent` (who's, running): a sandbox
// with the parent's lifetime, home and environment. The tier's sandbox
// caps count it. `language_default`: the one runCode uses for `language`.
StatusOr<sandboxes::SandboxRecord> CreateContext(const E2bDeps& deps, const auth::Principal& who,
                                                 const sandboxes::SandboxRecord& parent,
                                                 const std::string& language, const std::string& id,
                                                 bool language_default);
// The running contexts of `parent_id`, oldest first.
std::vector<sandboxes::SandboxRecord> ContextsOf(const E2bDeps& deps, const std::string& tenant,
                                                 const std::string& parent_id);
// Context `id` of `parent_id`; NotFound otherwise.
StatusOr<sandboxes::SandboxRecord> ContextOf(const E2bDeps& deps, const std::string& tenant,
                                             const std::string& parent_id, const std::string& id);
// Removes every context of `parent_id` (when it is killed).
void DeleteContextsOf(const E2bDeps& deps, const std::string& tenant, const std::string& parent_id);

// GET, POST /contexts; DELETE /contexts/{id}; POST /contexts/{id}/restart
// (e2b_context_routes.cc).
void RegisterContextRoutes(EnvdRoutes& http, const E2bDeps& deps);

}  // namespace coderunner::api::e2b

#endif  // CODERUNNER_API_E2B_E2B_CONTEXTS_H_
