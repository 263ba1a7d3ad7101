// The checks of store.*: the kind, a url that must never carry the password
// (it is logged and shown in errors; the password comes from
// store.password_env), and the pairing of kind and url.
#include <string>
#include <string_view>

#include "config_checks.h"
#include "config_table.h"

namespace coderunner::config {
namespace {

constexpr std::string_view kUriSchemes[] = {"postgresql://", "postgres://"};

bool IsSpace(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

char Lower(char ch) { return ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch - 'A' + 'a') : ch; }

int HexValue(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  ch = Lower(ch);
  return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

// `s` with %XX decoded, as libpq decodes a URI's parameter names; a stray
// '%' is kept.
std::string PercentDecoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The keyword "password" (any case) starting a key, then optional blanks
// and '=': keyword/value form ("password=x", "password = x") and a URI
// parameter ("?password=x", "&password=x").
bool HasPasswordKeyword(std::string_view s) {
  constexpr std::string_view kWord = "password";
  for (size_t i = 0; i + kWord.size() <= s.size(); ++i) {
    bool starts_key = i == 0 || IsSpace(s[i - 1]) || s[i - 1] == '?' || s[i - 1] == '&';
    if (!starts_key) continue;
    bool word = true;
    for (size_t k = 0; k < kWord.size() && word; ++k) word = Lower(s[i + k]) == kWord[k];
    if (!word) continue;
    size_t j = i + kWord.size();
    while (j < s.size() && IsSpace(s[j])) ++j;
    if (j < s.size() && s[j] == '=') return true;
  }
  return false;
}

// A URI's "user:password@host": a ':' in the user info.
bool HasUriPassword(std::string_view url) {
  for (std::string_view scheme : kUriSchemes) {
    if (url.substr(0, scheme.size()) != scheme) continue;
    std::string_view rest = url.substr(scheme.size());
    std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    size_t at = authority.rfind('@');
    return at != std::string_view::npos &&
           authority.substr(0, at).find(':') != std::string_view::npos;
  }
  return false;
}

}  // namespace

Status CheckStoreKind(const std::string& v, const std::string& path) {
  if (v == "sqlite" || v == "postgres") return OkStatus();
  return Bad(path, "must be sqlite or postgres, got '" + v + "'");
}

// Never quotes the value: it may hold the very password it refuses.
Status CheckStoreUrl(const std::string& v, const std::string& path) {
  for (char ch : v) {
    auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7f) return Bad(path, "must not hold control characters");
  }
  if (HasUriPassword(v) || HasPasswordKeyword(v) || HasPasswordKeyword(PercentDecoded(v))) {
    return Bad(path,
               "must not hold a password (password=, user:password@ or ?password=): put it in "
               "an environment variable and give that variable's name as store.password_env");
  }
  return OkStatus();
}

Status CheckStore(const StoreConfig& s, const std::string& path) {
  if (s.kind == "postgres" && s.url.empty()) {
    return Bad(path + ".url", "is required when " + path + ".kind is postgres");
  }
  if (s.kind == "sqlite" && !s.url.empty()) {
    return Bad(path + ".url",
               "is for " + path + ".kind: postgres only (the sqlite store is <data_dir>/jobs.db)");
  }
  return OkStatus();
}

}  // namespace coderunner::config
