#include "code_runner_section.h"

#include <algorithm>
#include <set>

#include "human_units.h"

namespace coderunner::config {
namespace {

constexpr char kSection[] = "code_runner";
constexpr int64_t kMinMemoryBytes = 6LL << 20;  // The engines refuse less (limits.cc).

// Whether the file gives limits.default.<key> (ReadLimits checked its shape).
bool DefaultLimitGiven(const YAML::Node& root, const char* key) {
  YAML::Node limits = root["limits"];
  if (!limits || !limits.IsMap()) return false;
  YAML::Node d = limits["default"];
  return d && d.IsMap() && d[key];
}

// `value` set into limits.default.<key>: not in conflict with the file's own
// limits.default.<key>, and within [floor, limits.max.<key>].
Status SetDefaultLimit(const YAML::Node& root, const std::string& path, const char* key,
                       int64_t value, int64_t floor, int64_t max, int64_t* member) {
  if (DefaultLimitGiven(root, key) && *member != value) {
    return Bad(path, std::string("conflicts with limits.default.") + key + " (" +
                         std::to_string(*member) + "); set one of them");
  }
  if (value < floor) return Bad(path, "must be at least " + std::to_string(floor) + " " + key);
  if (value > max) {
    return Bad(path, "is " + std::to_string(value) + " " + key + ", above limits.max." + key +
                         " (" + std::to_string(max) + ")");
  }
  *member = value;
  return OkStatus();
}

Status ReadLimitsOf(const YAML::Node& root, const YAML::Node& node, Config* c) {
  if (YAML::Node t = node["timeout"]) {
    const std::string path = "code_runner.timeout";
    if (!t.IsScalar()) return Bad(path, "expected seconds or a duration such as 30s");
    StatusOr<int64_t> ms = ParseDurationMs(t.Scalar(), 1000);
    if (!ms.ok()) return Bad(path, ms.status().message());
    Limits& d = c->default_limits;
    CR_RETURN_IF_ERROR(
        SetDefaultLimit(root, path, "timeout_ms", *ms, 1, c->max_limits.timeout_ms, &d.timeout_ms));
    CR_RETURN_IF_ERROR(
        SetDefaultLimit(root, path, "cpu_ms", *ms, 1, c->max_limits.cpu_ms, &d.cpu_ms));
  }
  if (YAML::Node m = node["max_memory"]) {
    const std::string path = "code_runner.max_memory";
    if (!m.IsScalar()) return Bad(path, "expected bytes or a size such as 256MB");
    StatusOr<int64_t> bytes = ParseSize(m.Scalar());
    if (!bytes.ok()) return Bad(path, bytes.status().message());
    CR_RETURN_IF_ERROR(SetDefaultLimit(root, path, "memory_bytes", *bytes, kMinMemoryBytes,
                                       c->max_limits.memory_bytes,
                                       &c->default_limits.memory_bytes));
  }
  return OkStatus();
}

// Whether two configs agree on `get`.
template <typename Get>
std::function<bool(const Config&, const Config&)> Same(Get get) {
  return [get](const Config& a, const Config& b) { return get(a) == get(b); };
}

}  // namespace

Status ApplyLanguageAllowlist(const std::vector<std::string>& allow, const std::string& path,
                              Config* c) {
  if (allow.empty()) return OkStatus();
  std::set<std::string> keep;
  for (const std::string& name : allow) {
    const LanguageSpec* lang = c->FindLanguage(name);
    if (lang == nullptr) {
      std::string known;
      for (const auto& l : c->languages) known += (known.empty() ? "" : ", ") + l.name;
      return Bad(path, "'" + name + "' is not a configured language (configured: " + known + ")");
    }
    keep.insert(lang->name);
  }
  std::erase_if(c->languages, [&](const LanguageSpec& l) { return keep.count(l.name) == 0; });
  bool has_default = std::any_of(c->languages.begin(), c->languages.end(),
                                 [](const LanguageSpec& l) { return l.is_default; });
  if (!has_default) c->languages.front().is_default = true;
  return OkStatus();
}

Status ReadCodeRunner(const YAML::Node& root, Config* c) {
  YAML::Node node = root[kSection];
  CR_RETURN_IF_ERROR(
      CheckKeys(node, kSection, {"enabled", "runtime", "languages", "timeout", "max_memory"}));
  CodeRunnerConfig& cr = c->code_runner;
  CR_RETURN_IF_ERROR(ReadValue(node, "enabled", Unit::kNone, "code_runner.enabled", &cr.enabled));
  std::string runtime;
  CR_RETURN_IF_ERROR(ReadValue(node, "runtime", Unit::kNone, "code_runner.runtime", &runtime));
  if (runtime == "sandboxed") {
    cr.runtime = RunMode::kSandboxed;
  } else if (runtime == "native") {
    cr.runtime = RunMode::kNative;
  } else if (node["runtime"]) {
    return Bad("code_runner.runtime", "must be sandboxed or native, got '" + runtime + "'");
  }
  CR_RETURN_IF_ERROR(
      ReadValue(node, "languages", Unit::kNone, "code_runner.languages", &cr.languages));
  CR_RETURN_IF_ERROR(ApplyLanguageAllowlist(cr.languages, "code_runner.languages", c));
  return ReadLimitsOf(root, node, c);
}

void DescribeCodeRunner(std::vector<KeyInfo>* out) {
  out->push_back({"code_runner.enabled", Unit::kNone,
                  Same([](const Config& c) { return c.code_runner.enabled; })});
  out->push_back({"code_runner.runtime", Unit::kNone,
                  Same([](const Config& c) { return c.code_runner.runtime; })});
  out->push_back({"code_runner.languages", Unit::kNone,
                  Same([](const Config& c) { return c.code_runner.languages; })});
  // Seconds or a duration, and a size: the unit column is for _s/_bytes keys.
  out->push_back({"code_runner.timeout", Unit::kNone, Same([](const Config& c) {
                    return std::pair(c.default_limits.timeout_ms, c.default_limits.cpu_ms);
                  })});
  out->push_back({"code_runner.max_memory", Unit::kNone,
                  Same([](const Config& c) { return c.default_limits.memory_bytes; })});
}

Status ReadSecurity(const YAML::Node& root, Config* c) {
  YAML::Node node = root["security"];
  CR_RETURN_IF_ERROR(CheckKeys(node, "security", {"mode"}));
  if (!node["mode"]) return OkStatus();
  std::string mode;
  CR_RETURN_IF_ERROR(ReadValue(node, "mode", Unit::kNone, "security.mode", &mode));
  if (mode == "strict") {
    c->security.mode = SecurityMode::kStrict;
  } else if (mode == "permissive") {
    c->security.mode = SecurityMode::kPermissive;
  } else {
    return Bad("security.mode", "must be strict or permissive, got '" + mode + "'");
  }
  return OkStatus();
}

void DescribeSecurity(std::vector<KeyInfo>* out) {
  out->push_back(
      {"security.mode", Unit::kNone, Same([](const Config& c) { return c.security.mode; })});
}

Status CheckCodeRunner(const Config& c) {
  if (c.code_runner.runtime == RunMode::kNative && c.security.mode != SecurityMode::kPermissive) {
    return Bad("code_runner.runtime",
               "native needs security.mode: permissive (native runs programs on the host "
               "without a container; security.mode is strict)");
  }
  return OkStatus();
}

}  // namespace coderunner::config
