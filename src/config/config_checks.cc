#include "config_checks.h"

#include <cctype>
#include <map>
#include <set>

#include "code_runner_section.h"
#include "coderunner/common/sha256.h"
#include "coderunner/config/limits.h"
#include "coderunner/config/uid_range.h"
#include "coderunner/egress/egress_policy.h"
#include "config_table.h"

namespace coderunner::config {
namespace {

// What a module name in languages.<name>.preload may hold (dotted).
constexpr char kModuleNameChars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";

}  // namespace

Status CheckRuntime(const std::string& v, const std::string& path) {
  if (v.empty() || v == "runc" || v == "runsc") return OkStatus();
  return Bad(path, "must be runc or runsc, got '" + v + "'");
}

Status CheckVerifyMode(const std::string& v, const std::string& path) {
  if (v == "off" || v == "checks" || v == "full") return OkStatus();
  return Bad(path, "must be off, checks or full, got '" + v + "'");
}

Status CheckTierVerifyMode(const std::string& v, const std::string& path) {
  return v.empty() ? OkStatus() : CheckVerifyMode(v, path);
}

Status CheckAbsolute(const std::string& v, const std::string& path) {
  if (v.empty() || v.front() != '/') return Bad(path, "must be an absolute path");
  return OkStatus();
}

Status CheckHostPort(const std::string& v, const std::string& path) {
  if (v.rfind(':') == std::string::npos) return Bad(path, "expected host:port, got '" + v + "'");
  return OkStatus();
}

// The janitor removes every container labelled with this instance: an
// empty value would match all instances sharing the engine.
Status CheckInstance(const std::string& v, const std::string& path) {
  if (v.empty() || v.size() > 64) return Bad(path, "must be 1 to 64 characters");
  for (char ch : v) {
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') {
      return Bad(path, "may only hold letters, digits, '-' and '_'");
    }
  }
  return OkStatus();
}

Status CheckLogLevel(const std::string& v, const std::string& path) {
  static const std::set<std::string> kLevels = {"trace", "debug", "info", "warn", "error"};
  if (kLevels.count(v) == 0) return Bad(path, "must be one of trace, debug, info, warn, error");
  return OkStatus();
}

Status CheckLogFormat(const std::string& v, const std::string& path) {
  if (v != "text" && v != "json") return Bad(path, "must be text or json");
  return OkStatus();
}

Status CheckAuthMode(const std::string& v, const std::string& path) {
  if (v != "api_keys" && v != "none") return Bad(path, "must be api_keys or none");
  return OkStatus();
}

Status CheckHttpUrl(const std::string& v, const std::string& path) {
  if (!v.empty() && v.rfind("http://", 0) != 0 && v.rfind("https://", 0) != 0) {
    return Bad(path, "must start with http:// or https://");
  }
  return OkStatus();
}

Status CheckAdvertiseUrl(const std::string& v, const std::string& path) {
  if (v.empty()) return OkStatus();
  CR_RETURN_IF_ERROR(CheckHttpUrl(v, path));
  for (char ch : v) {
    if (static_cast<unsigned char>(ch) <= ' ' || ch == 0x7f) {
      return Bad(path, "must not hold spaces or control characters");
    }
  }
  const std::string rest = v.substr(v.find("://") + 3);
  const std::string authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != std::string::npos) return Bad(path, "must not hold user info");
  if (authority.empty() || authority.front() == ':') return Bad(path, "must name a host");
  return OkStatus();
}

Status CheckEnvName(const std::string& v, const std::string& path) {
  if (v.empty()) return OkStatus();
  // ASCII only, by hand: <cctype> is locale-dependent and undefined for
  // the negative chars of non-ASCII bytes.
  auto letter = [](char ch) { return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z'); };
  auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  bool name = v.size() <= 64 && (letter(v[0]) || v[0] == '_');
  for (char ch : v) name = name && (letter(ch) || digit(ch) || ch == '_');
  if (!name || v.rfind("sk-", 0) == 0) {
    return Bad(path,
               "must be the NAME of an environment variable holding the key (e.g. "
               "OPENAI_API_KEY), never the key itself");
  }
  return OkStatus();
}

Status CheckKeySha256(const std::string& v, const std::string& path) {
  if (!IsSha256Hex(v)) return Bad(path, "must be 64 lower-case hex characters (sha256 of the key)");
  return OkStatus();
}

Status CheckRequired(const std::string& v, const std::string& path) {
  return v.empty() ? Bad(path, "is required") : OkStatus();
}

Status CheckPlainFileName(const std::string& v, const std::string& path) {
  if (v.empty() || v.find('/') != std::string::npos || v.rfind(".coderunner", 0) == 0 || v == "." ||
      v == "..") {
    return Bad(path, "must be a plain file name");
  }
  return OkStatus();
}

Status NormalizeSocket(const std::string& path, std::string* socket) {
  constexpr std::string_view kUnix = "unix://";
  if (socket->rfind(kUnix, 0) == 0) {
    *socket = socket->substr(kUnix.size());
    if (socket->empty() || socket->front() != '/') {
      return Bad(path, "expected unix:///absolute/path");
    }
    return OkStatus();
  }
  if (socket->find("://") != std::string::npos) {
    return Bad(path,
               "only unix sockets are supported (a path or unix://PATH), got '" + *socket + "'");
  }
  return OkStatus();
}

Status CheckLanguage(const LanguageSpec& lang, const std::string& path) {
  CR_RETURN_IF_ERROR(CheckRequired(lang.image, path + ".image"));
  CR_RETURN_IF_ERROR(CheckPlainFileName(lang.file, path + ".file"));
  if (lang.command.empty()) return Bad(path + ".command", "is required");
  if (!lang.preload.empty() && lang.prestart.empty()) {
    return Bad(path + ".preload", "needs a prestart command to load into");
  }
  for (const auto& m : lang.preload) {
    // Module names only: they are words of the prestart's command line.
    const bool plain = !m.empty() && m.front() != '.' && m.back() != '.' &&
                       m.find_first_not_of(kModuleNameChars) == std::string::npos;
    if (!plain) return Bad(path + ".preload", "'" + m + "' is not a module name");
  }
  return OkStatus();
}

Status CheckTier(const TierConfig& t, const std::string& path) {
  if (t.max_sandbox_ttl_s < t.sandbox_ttl_s) return Bad(path, kTierSandboxCaps);
  for (const auto& rule : t.egress_allow) {
    if (auto r = egress::ParseEgressRule(rule); !r.ok()) {
      return Bad(path + ".egress_allow", r.status().message());
    }
  }
  for (const auto& block : t.egress_private) {
    if (auto r = egress::ParseAddressRange(block); !r.ok()) {
      return Bad(path + ".egress_private", r.status().message());
    }
  }
  return OkStatus();
}

// Every language name and alias names one language only.
Status CheckLanguageNames(const Config& c) {
  std::map<std::string, std::string> owner;
  for (const auto& l : c.languages) owner.emplace(l.name, l.name);
  for (const auto& l : c.languages) {
    for (const auto& a : l.aliases) {
      auto [it, fresh] = owner.emplace(a, l.name);
      if (!fresh && it->second != l.name) {
        return Bad("languages." + l.name + ".aliases",
                   "\"" + a + "\" already names language " + it->second);
      }
    }
  }
  return OkStatus();
}

Status CheckAcross(const Config& c) {
  CR_RETURN_IF_ERROR(CheckLanguageNames(c));
  CR_RETURN_IF_ERROR(CheckCodeRunner(c));
  Status pair = ValidateLimitPair(c.default_limits, c.max_limits);
  if (!pair.ok()) return Bad("limits.default", pair.message());
  for (const auto& [lang, n] : c.pool.sizes) {
    if (c.FindLanguage(lang) == nullptr) {
      return Bad("pool.sizes." + lang, "names no configured language");
    }
  }
  if (c.artifacts.max_file_bytes < 1 || c.artifacts.max_total_bytes < c.artifacts.max_file_bytes) {
    return Bad("artifacts", "need 1 <= max_file_bytes <= max_total_bytes");
  }
  for (const auto& t : c.tiers) {
    // Else a job's own artifacts could be purged as soon as they are kept.
    if (t.max_retained_artifact_bytes < c.artifacts.max_total_bytes) {
      return Bad("tiers." + t.name + ".max_retained_artifact_bytes",
                 "must be >= artifacts.max_total_bytes (" +
                     std::to_string(c.artifacts.max_total_bytes) + ")");
    }
  }
  if (!c.llm.base_url.empty() && c.llm.model.empty()) {
    return Bad("llm.model", "is required when llm.base_url is set");
  }
  for (const auto& k : c.auth.keys) {
    if (c.FindTier(k.tier) == nullptr) {
      return Bad("auth.keys", "tenant " + k.tenant + " names unknown tier '" + k.tier + "'");
    }
  }
  if (c.auth.mode == "none" && c.FindTier(c.auth.none_tier) == nullptr) {
    return Bad("auth.none_tier", "unknown tier '" + c.auth.none_tier + "'");
  }
  if (Status uids = ValidateUidRange(c.sandbox.uid_first, c.sandbox.uid_count); !uids.ok()) {
    return Bad("sandbox.uid_first/uid_count", uids.message());
  }
  return OkStatus();
}

}  // namespace coderunner::config
