// The top level of the config file: which sections it has, in reading
// order, and how each one walks its table.
#include <functional>
#include <string>
#include <vector>

#include "code_runner_section.h"
#include "config_checks.h"
#include "config_sections.h"
#include "config_table.h"

namespace coderunner::config {
namespace {

// One top-level key: how to read it from the root mapping (called only when
// the key is present) and how to list its keys (KeyInfo).
struct Section {
  const char* key;
  std::function<Status(const YAML::Node& root, Config* c)> read;
  std::function<void(std::vector<KeyInfo>* out)> describe;
};

// A section that is one struct member of Config, read by its table alone.
template <typename S>
Section Sub(const char* key, S Config::*member, std::span<const Field<S>> fields) {
  return {key,
          [=](const YAML::Node& root, Config* c) {
            return ReadSection(root[key], key, fields, &(c->*member));
          },
          [=](std::vector<KeyInfo>* out) {
            DescribeFields(
                std::string(key), fields, [member](const Config& c) { return &(c.*member); }, out);
          }};
}

const Config* Whole(const Config& c) { return &c; }

// engine: its table, then engine.socket as a path ("unix://" stripped).
Section Engine() {
  Section s = Sub("engine", &Config::engine, EngineFields());
  s.read = [read = s.read](const YAML::Node& root, Config* c) {
    CR_RETURN_IF_ERROR(read(root, c));
    return NormalizeSocket("engine.socket", &c->engine.socket);
  };
  return s;
}

// store: its table, then kind and url as a pair.
Section Store() {
  Section s = Sub("store", &Config::store, StoreFields());
  s.read = [read = s.read](const YAML::Node& root, Config* c) {
    CR_RETURN_IF_ERROR(read(root, c));
    return CheckStore(c->store, "store");
  };
  return s;
}

// Top-level output_bytes is the default per-stream cap, the same value as
// limits.default.output_bytes; giving both with different values is an error.
Status ReadOutputBytes(const YAML::Node& root, Config* c) {
  int64_t v = 0;
  CR_RETURN_IF_ERROR(ReadValue(root, "output_bytes", Unit::kBytes, "output_bytes", &v));
  CR_RETURN_IF_ERROR(CheckBounds(static_cast<double>(v), AtLeast(0), "output_bytes", ""));
  c->default_limits.output_bytes = v;
  return OkStatus();
}

Status ReadLimits(const YAML::Node& root, Config* c) {
  YAML::Node l = root["limits"];
  CR_RETURN_IF_ERROR(CheckKeys(l, "limits", {"default", "max"}));
  Limits before = c->default_limits;
  if (YAML::Node d = l["default"]) {
    CR_RETURN_IF_ERROR(ReadSection(d, "limits.default", LimitsFields(), &c->default_limits));
  }
  if (root["output_bytes"] && c->default_limits.output_bytes != before.output_bytes) {
    return Bad("output_bytes", "conflicts with limits.default.output_bytes; set one of them");
  }
  if (YAML::Node m = l["max"]) {
    CR_RETURN_IF_ERROR(ReadSection(m, "limits.max", LimitsFields(), &c->max_limits));
  }
  return OkStatus();
}

void DescribeLimits(std::vector<KeyInfo>* out) {
  DescribeFields(
      "limits.default", LimitsFields(), [](const Config& c) { return &c.default_limits; }, out);
  DescribeFields(
      "limits.max", LimitsFields(), [](const Config& c) { return &c.max_limits; }, out);
}

// languages: the file's mapping replaces the built-in one, in file order;
// a list (`languages: [python, typescript]`) is an allowlist over it.
Status ReadLanguages(const YAML::Node& root, Config* c) {
  YAML::Node node = root["languages"];
  if (node.IsSequence()) {
    std::vector<std::string> allow;
    CR_RETURN_IF_ERROR(ReadValue(root, "languages", Unit::kNone, "languages", &allow));
    return ApplyLanguageAllowlist(allow, "languages", c);
  }
  if (!node.IsMap() || node.size() == 0) return Bad("languages", "expected a non-empty mapping");
  c->languages.clear();
  int defaults = 0;
  for (const auto& kv : node) {
    LanguageSpec lang;
    lang.name = kv.first.as<std::string>();
    std::string path = "languages." + lang.name;
    CR_RETURN_IF_ERROR(ReadSection(kv.second, path, LanguageFields(), &lang));
    CR_RETURN_IF_ERROR(CheckLanguage(lang, path));
    if (lang.is_default) ++defaults;
    c->languages.push_back(std::move(lang));
  }
  if (defaults > 1) return Bad("languages", "more than one language has default: true");
  return OkStatus();
}

void DescribeLanguages(std::vector<KeyInfo>* out) {
  for (const auto& lang : DefaultConfig().languages) {
    DescribeFields(
        "languages." + lang.name, LanguageFields(),
        [name = lang.name](const Config& c) { return c.FindLanguage(name); }, out);
  }
}

// Tiers given in the file override the defaults of the same name, key by
// key; new names add tiers.
Status ReadTiers(const YAML::Node& root, Config* c) {
  YAML::Node node = root["tiers"];
  if (!node.IsMap()) return Bad("tiers", "expected a mapping");
  for (const auto& kv : node) {
    std::string name = kv.first.as<std::string>();
    std::string path = "tiers." + name;
    TierConfig* t = nullptr;
    for (auto& existing : c->tiers) {
      if (existing.name == name) t = &existing;
    }
    if (t == nullptr) {
      c->tiers.push_back(TierConfig{});
      t = &c->tiers.back();
      t->name = name;
    }
    CR_RETURN_IF_ERROR(ReadSection(kv.second, path, TierFields(), t));
    CR_RETURN_IF_ERROR(CheckTier(*t, path));
  }
  return OkStatus();
}

void DescribeTiers(std::vector<KeyInfo>* out) {
  for (const auto& tier : DefaultConfig().tiers) {
    DescribeFields(
        "tiers." + tier.name, TierFields(),
        [name = tier.name](const Config& c) { return c.FindTier(name); }, out);
  }
}

Status ReadAuth(const YAML::Node& root, Config* c) {
  YAML::Node node = root["auth"];
  CR_RETURN_IF_ERROR(ReadSection(node, "auth", AuthFields(), &c->auth, {"keys"}));
  YAML::Node keys = node["keys"];
  if (!keys) return OkStatus();
  if (!keys.IsSequence()) return Bad("auth.keys", "expected a list");
  for (size_t i = 0; i < keys.size(); ++i) {
    ApiKeyConfig k;
    CR_RETURN_IF_ERROR(
        ReadSection(keys[i], "auth.keys[" + std::to_string(i) + "]", ApiKeyFields(), &k));
    c->auth.keys.push_back(std::move(k));
  }
  return OkStatus();
}

void DescribeAuth(std::vector<KeyInfo>* out) {
  DescribeFields(
      "auth", AuthFields(), [](const Config& c) { return &c.auth; }, out);
  auto same_keys = [](const Config& a, const Config& b) {
    if (a.auth.keys.size() != b.auth.keys.size()) return false;
    for (size_t i = 0; i < a.auth.keys.size(); ++i) {
      const ApiKeyConfig& x = a.auth.keys[i];
      const ApiKeyConfig& y = b.auth.keys[i];
      if (x.tenant != y.tenant || x.tier != y.tier || x.key_sha256 != y.key_sha256 ||
          x.admin != y.admin) {
        return false;
      }
    }
    return true;
  };
  out->push_back({"auth.keys", Unit::kNone, same_keys});
}

// Every top-level key but RootFields(), in reading order (a later section
// may depend on an earlier one: limits on output_bytes).
const std::vector<Section>& Sections() {
  static const std::vector<Section> kSections = {
      Sub("server", &Config::server, ServerFields()),
      Engine(),
      Sub("sandbox", &Config::sandbox, SandboxFields()),
      Sub("files", &Config::files, FilesFields()),
      Sub("pool", &Config::pool, PoolFields()),
      Store(),
      Sub("node", &Config::node, NodeFields()),
      Sub("jobs", &Config::jobs, JobsFields()),
      Sub("webhooks", &Config::webhooks, WebhooksFields()),
      Sub("artifacts", &Config::artifacts, ArtifactsFields()),
      Sub("volumes", &Config::volumes, VolumesFields()),
      Sub("packages", &Config::packages, PackagesFields()),
      Sub("egress", &Config::egress, EgressFields()),
      Sub("llm", &Config::llm, LlmFields()),
      Sub("intents", &Config::intents, IntentsFields()),
      Sub("ui", &Config::ui, UiFields()),
      Sub("mcp", &Config::mcp, McpFields()),
      Sub("e2b", &Config::e2b, E2bFields()),
      {"output_bytes", ReadOutputBytes,
       [](std::vector<KeyInfo>* out) {
         out->push_back({"output_bytes", Unit::kBytes, [](const Config& a, const Config& b) {
                           return a.default_limits.output_bytes == b.default_limits.output_bytes;
                         }});
       }},
      {"limits", ReadLimits, DescribeLimits},
      {"languages", ReadLanguages, DescribeLanguages},
      {"tiers", ReadTiers, DescribeTiers},
      {"security", ReadSecurity, DescribeSecurity},
      {"code_runner", ReadCodeRunner, DescribeCodeRunner},  // After limits and languages.
      {"auth", ReadAuth, DescribeAuth},
      {"log",
       [](const YAML::Node& root, Config* c) {
         return ReadSection(root["log"], "log", LogFields(), c);
       },
       [](std::vector<KeyInfo>* out) { DescribeFields("log", LogFields(), Whole, out); }},
  };
  return kSections;
}

}  // namespace

Status ReadRoot(const YAML::Node& root, Config* c) {
  std::set<std::string> known = KeysOf(RootFields());
  for (const Section& s : Sections()) known.insert(s.key);
  CR_RETURN_IF_ERROR(CheckKeys(root, "", known));
  CR_RETURN_IF_ERROR(ReadFields(root, "", RootFields(), c));
  for (const Section& s : Sections()) {
    if (root[s.key]) CR_RETURN_IF_ERROR(s.read(root, c));
  }
  return CheckFields(*c, "", RootFields());
}

std::vector<KeyInfo> AllKeys() {
  std::vector<KeyInfo> out;
  DescribeFields("", RootFields(), Whole, &out);
  for (const Section& s : Sections()) s.describe(&out);
  return out;
}

}  // namespace coderunner::config
