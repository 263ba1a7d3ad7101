// AgentCatalog: the code-writer profiles Execute mode chooses from.
//
// A profile is a system prompt, a language and conventions. Built-in
// profiles for python, javascript and bash are compiled in from
// config/agents/*.yaml; intents.agents_dir may add more at startup; profiles
// the model writes for intents no profile fits are stored durably, one JSON
// file each under <store_dir>/<tenant>/, and are visible only to the tenant
// whose intent created them.
#ifndef CODERUNNER_INTENT_AGENT_CATALOG_H_
#define CODERUNNER_INTENT_AGENT_CATALOG_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::intent {

// Plain data; copy freely.
struct AgentProfile {
  std::string name;                      // [a-z0-9-]{1,64}; unique within what a tenant sees.
  std::string language;                  // "python", "javascript", "bash".
  std::string description;               // One line: what this agent is good at.
  std::vector<std::string> keywords;     // Lower-case words the matcher compares intents with.
  std::string system_prompt;             // The system message for code generation.
  std::vector<std::string> conventions;  // Rules appended to the system prompt as a list.
  bool builtin = false;                  // Shipped (or from intents.agents_dir), not created.
  std::string tenant;                    // Owner of a created profile; "" for shared ones.
  int64_t created_at_ms = 0;             // 0 for shared ones.
};

struct AgentMatch {
  AgentProfile profile;
  double score = 0;  // 0..1; see MatchScore.
};

// How well `profile` fits `intent`, 0..1: the share of the intent's content
// words (lower-cased, stop words and language names dropped, trailing plural
// 's' folded; numbers count as stop words) found among the profile's
// keywords. An intent with no content words ("compute 2 + 3") is generic: 1
// for a shared (builtin) profile, 0 for a created one, so it goes to the
// language's default and never makes the model write a new profile.
// Pure; thread-safe.
double MatchScore(std::string_view intent, const AgentProfile& profile);

// The system message for `profile`: its system prompt followed by its
// conventions as a bulleted list. Pure.
std::string RenderSystemPrompt(const AgentProfile& profile);

// A profile the model wrote: a JSON object {"name","description","keywords",
// "system_prompt","conventions"} alone or inside a fenced block. The
// language is `language` whatever the reply says. The name is normalized
// (lower-case, other characters to '-', at most 64); keywords are
// lower-cased, at most 32. InvalidArgument (reason "bad_agent_profile") if
// there is no such object or a field is missing, mistyped or empty, or the
// system prompt is over 8 KiB. Pure.
StatusOr<AgentProfile> ParseGeneratedProfile(std::string_view reply, std::string_view language);

// Thread-safe.
class AgentCatalog {
 public:
  // Loads the built-in profiles, then every *.yaml in `extra_dir` ("" =
  // none; a bad file is InvalidArgument naming it), then every stored
  // profile under `store_dir` (created if missing; unreadable or corrupt
  // files are skipped with a warning). Internal if `store_dir` cannot be
  // created.
  static StatusOr<std::unique_ptr<AgentCatalog>> Open(const std::string& extra_dir,
                                                      const std::string& store_dir);

  // The best-scoring profile of `language` that `tenant` sees (shared ones
  // and its own), ties going to its own, then to the newest; nullopt if the
  // language has none.
  std::optional<AgentMatch> BestMatch(std::string_view intent, std::string_view language,
                                      const std::string& tenant) const;

  // The profile `tenant` sees under `name`, or nullopt.
  std::optional<AgentProfile> Find(const std::string& name, const std::string& tenant) const;

  // Stores a created profile for `profile.tenant` durably (written to a
  // temporary file, fsynced, renamed) before returning. If the name is
  // taken for that tenant (or by a shared profile) a suffix "-2", "-3"...
  // is added; returns the name used. InvalidArgument ("bad_agent_profile")
  // if the profile is invalid or the tenant is not [A-Za-z0-9_.-]{1,128}
  // (it names a directory; "." and ".." are refused); Internal if it cannot
  // be written. Sets created_at_ms to now if it is 0.
  StatusOr<std::string> Add(AgentProfile profile);

  // Shared profiles and `tenant`'s own, shared first, each group by name.
  std::vector<AgentProfile> List(const std::string& tenant) const;

 private:
  AgentCatalog() = default;
  mutable std::mutex mu_;
  std::string store_dir_;
  std::vector<AgentProfile> profiles_;
};

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_AGENT_CATALOG_H_
