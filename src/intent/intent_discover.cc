// The discover_agent stage of an intent: the closest code-writer profile,
// or a new one the model writes (stored for the tenant).
#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "coderunner/intent/agent_catalog.h"
#include "coderunner/intent/intent_pipeline.h"
#include "intent_execution.h"
#include "intent_progress.h"
#include "prompts.h"

namespace coderunner::intent {
namespace {

// The words of an intent, so that a profile created for it matches the
// same intent next time (MatchScore drops stop words on the intent side).
std::vector<std::string> IntentWords(std::string_view intent) {
  std::vector<std::string> words;
  std::string w;
  for (size_t i = 0; i <= intent.size(); ++i) {
    unsigned char c = i < intent.size() ? static_cast<unsigned char>(intent[i]) : ' ';
    if (std::isalnum(c)) {
      w += static_cast<char>(std::tolower(c));
    } else if (!w.empty()) {
      if (w.size() >= 3) words.push_back(w);
      w.clear();
    }
  }
  return words;
}

}  // namespace

std::optional<AgentProfile> IntentPipeline::Execution::Discover() {
  progress_.Start(Stage::kDiscoverAgent, "looking for a " + req_.language + " agent", Now());
  Save({Stage::kDiscoverAgent});
  const double threshold = config().intents.agent_match_threshold;
  auto match = p_.agents_.BestMatch(req_.intent, req_.language, record_.tenant);
  AgentProfile agent;
  std::string detail;
  bool created = false;
  char score[32];
  snprintf(score, sizeof(score), "%.2f", match ? match->score : 0.0);
  if (match && match->score >= threshold) {
    agent = match->profile;
    detail = "reused " + agent.name + " (match " + score + ")";
  } else {
    auto reply = Ask(AgentWriterMessages(req_.intent, req_.language));
    if (!reply.ok()) {
      FailLlm(Stage::kDiscoverAgent, reply.status());
      return std::nullopt;
    }
    auto profile = ParseGeneratedProfile(reply->content, req_.language);
    if (!profile.ok() && match) {
      // The model wrote something unusable, but a profile of the language
      // exists: a weaker fit beats failing the intent.
      agent = match->profile;
      detail = "the model's new profile was unusable (" + profile.status().message() + "); using " +
               agent.name + " (match " + score + ")";
    } else if (!profile.ok()) {
      FailLlm(Stage::kDiscoverAgent,
              InternalError("the model's agent profile is unusable: " + profile.status().message(),
                            kLlmBadReply));
      return std::nullopt;
    } else {
      agent = std::move(*profile);
      agent.tenant = record_.tenant;
      agent.created_at_ms = Now();
      std::set<std::string> have(agent.keywords.begin(), agent.keywords.end());
      for (auto& w : IntentWords(req_.intent)) {
        if (have.insert(w).second) agent.keywords.push_back(w);
      }
      auto name = p_.agents_.Add(agent);
      if (name.ok()) {
        agent.name = *name;
        detail = "created " + agent.name + " (best existing match " + score + ")";
        created = true;
      } else {
        spdlog::warn("intent {}: cannot store agent {}: {}", record_.id, agent.name,
                     name.status().ToString());
        detail = "created " + agent.name +
                 " for this intent only (not stored: " + name.status().message() + ")";
      }
    }
  }
  progress_.SetAgent({{"name", agent.name},
                      {"language", agent.language},
                      {"description", agent.description},
                      {"builtin", agent.builtin},
                      {"created", created}});
  progress_.End(Stage::kDiscoverAgent, StageStatus::kSucceeded, detail, Now());
  Save({Stage::kDiscoverAgent});
  return agent;
}

}  // namespace coderunner::intent
