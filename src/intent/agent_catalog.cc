#include "coderunner/intent/agent_catalog.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "builtin_agents.h"
#include "coderunner/common/bounded_json.h"
#include "coderunner/common/wall_clock.h"

namespace coderunner::intent {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t kMaxSystemPrompt = 8 << 10;
constexpr size_t kMaxKeywords = 200;
constexpr size_t kMaxGeneratedKeywords = 32;

// ProfileWords that say nothing about a task's domain (and language names, which
// the language already decides).
const std::set<std::string>& StopWords() {
  static const std::set<std::string> kWords = {
      "a",       "an",       "the",     "of",        "to",       "and",        "or",
      "in",      "on",       "for",     "with",      "that",     "this",       "is",
      "are",     "be",       "it",      "its",       "me",       "my",         "i",
      "you",     "your",     "we",      "please",    "given",    "from",       "into",
      "by",      "as",       "at",      "each",      "all",      "then",       "return",
      "returns", "print",    "prints",  "output",    "write",    "create",     "make",
      "program", "function", "script",  "code",      "one",      "liner",      "oneliner",
      "using",   "use",      "compute", "calculate", "together", "two",        "what",
      "how",     "which",    "get",     "give",      "show",     "do",         "does",
      "some",    "any",      "them",    "these",     "those",    "there",      "their",
      "if",      "else",     "than",    "so",        "up",       "out",        "about",
      "can",     "should",   "will",    "would",     "just",     "only",       "also",
      "new",     "report",   "display", "tell",      "result",   "answer",     "input",
      "inputs",  "provided", "python",  "python3",   "py",       "javascript", "js",
      "node",    "nodejs",   "bash",    "shell",     "sh",       "typescript", "ts"};
  return kWords;
}

// Lower-cased [a-z0-9]+ words; a trailing plural 's' folded ("numbers" ->
// "number", not "class" -> "clas").
std::vector<std::string> ProfileWords(std::string_view text) {
  std::vector<std::string> out;
  std::string w;
  for (size_t i = 0; i <= text.size(); ++i) {
    unsigned char c = i < text.size() ? static_cast<unsigned char>(text[i]) : ' ';
    if (c < 0x80 && std::isalnum(c)) {
      w += static_cast<char>(std::tolower(c));
    } else if (!w.empty()) {
      out.push_back(w);
      w.clear();
    }
  }
  return out;
}

std::string Fold(std::string w) {
  if (w.size() > 3 && w.back() == 's' && w[w.size() - 2] != 's') w.pop_back();
  return w;
}

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

bool ValidTenant(const std::string& t) {
  if (t.empty() || t.size() > 128 || t == "." || t == "..") return false;
  return std::all_of(t.begin(), t.end(), [](char c) {
    // Explicit ASCII: isalnum() depends on the locale, and this is a path segment.
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

Status BadProfile(const std::string& where, const std::string& why) {
  return InvalidArgumentError("agent profile " + where + ": " + why, "bad_agent_profile");
}

Status Validate(AgentProfile& p, const std::string& where) {
  if (!ValidName(p.name)) return BadProfile(where, "name must be [a-z0-9-]{1,64}");
  if (p.language.empty()) return BadProfile(where, "language is required");
  if (p.system_prompt.find_first_not_of(" \t\r\n") == std::string::npos) {
    return BadProfile(where, "system_prompt is required");
  }
  if (p.system_prompt.size() > kMaxSystemPrompt)
    return BadProfile(where, "system_prompt over 8 KiB");
  if (p.keywords.size() > kMaxKeywords) p.keywords.resize(kMaxKeywords);
  for (auto& k : p.keywords) {
    std::transform(k.begin(), k.end(), k.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  return OkStatus();
}

// A list of strings, or empty when absent. A scalar where a list belongs
// ("keywords: add, sum") throws rather than silently matching nothing.
std::vector<std::string> YamlList(const YAML::Node& n, const char* key) {
  std::vector<std::string> out;
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) throw YAML::Exception(n.Mark(), std::string(key) + " must be a list");
  for (const auto& x : n) out.push_back(x.as<std::string>());
  return out;
}

StatusOr<AgentProfile> FromYaml(std::string_view text, const std::string& where) {
  AgentProfile p;
  try {
    YAML::Node n = YAML::Load(std::string(text));
    if (!n.IsMap()) return BadProfile(where, "expected a mapping");
    p.name = n["name"] ? n["name"].as<std::string>() : "";
    p.language = n["language"] ? n["language"].as<std::string>() : "";
    p.description = n["description"] ? n["description"].as<std::string>() : "";
    p.system_prompt = n["system_prompt"] ? n["system_prompt"].as<std::string>() : "";
    p.keywords = YamlList(n["keywords"], "keywords");
    p.conventions = YamlList(n["conventions"], "conventions");
  } catch (const YAML::Exception& e) {
    return BadProfile(where, e.what());
  }
  p.builtin = true;
  CR_RETURN_IF_ERROR(Validate(p, where));
  return p;
}

json ToJson(const AgentProfile& p) {
  return {
      {"name", p.name},         {"language", p.language},           {"description", p.description},
      {"keywords", p.keywords}, {"system_prompt", p.system_prompt}, {"conventions", p.conventions},
      {"tenant", p.tenant},     {"created_at_ms", p.created_at_ms}};
}

StatusOr<AgentProfile> ProfileFromJson(const json& j, const std::string& where) {
  AgentProfile p;
  try {
    p.name = j.at("name").get<std::string>();
    p.language = j.at("language").get<std::string>();
    p.description = j.value("description", "");
    p.system_prompt = j.at("system_prompt").get<std::string>();
    p.keywords = j.value("keywords", std::vector<std::string>{});
    p.conventions = j.value("conventions", std::vector<std::string>{});
    p.tenant = j.value("tenant", "");
    p.created_at_ms = j.value("created_at_ms", int64_t{0});
  } catch (const json::exception& e) {
    return BadProfile(where, e.what());
  }
  CR_RETURN_IF_ERROR(Validate(p, where));
  return p;
}

// Writes `data` to `path` so that a crash leaves the old file or the new
// one, never a torn one: temporary file, fsync, rename, fsync of the dir
// (without the last, the rename itself may not survive a power loss).
Status WriteDurably(const fs::path& path, const std::string& data) {
  fs::path tmp = path;
  tmp += ".tmp";
  auto fail = [&](const char* what, int err) {
    unlink(tmp.c_str());
    return InternalError(std::string(what) + " " + path.string() + ": " + strerror(err),
                         "agent_io");
  };
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail("create", errno);
  for (size_t done = 0; done < data.size();) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return fail("write", err);
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    int err = errno;
    close(fd);
    return fail("fsync", err);
  }
  if (close(fd) != 0) return fail("close", errno);
  if (rename(tmp.c_str(), path.c_str()) != 0) return fail("rename", errno);
  int dir = open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || fsync(dir) != 0) {
    int err = errno;
    if (dir >= 0) close(dir);
    return InternalError("fsync the directory of " + path.string() + ": " + strerror(err),
                         "agent_io");
  }
  close(dir);
  return OkStatus();
}

StatusOr<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return InternalError("cannot read " + path.string(), "agent_io");
  return text.str();
}

}  // namespace

double MatchScore(std::string_view intent, const AgentProfile& profile) {
  std::set<std::string> keywords;
  for (const auto& k : profile.keywords) {
    for (auto& w : ProfileWords(k)) keywords.insert(Fold(w));
  }
  std::set<std::string> content;
  for (auto& w : ProfileWords(intent)) {
    // Single letters are mostly the names of inputs ("add a and b",
    // "reverse the string s"): they say nothing about the domain.
    if (w.size() == 1 || StopWords().count(w) > 0) continue;
    if (std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    content.insert(Fold(w));
  }
  // An intent with no content words ("compute 2 + 3") is generic: a shared
  // profile fits it perfectly (so it never makes the model write a new one),
  // a created one, specialized by construction, not at all.
  if (content.empty()) return profile.builtin ? 1.0 : 0.0;
  size_t hits = 0;
  for (const auto& w : content) hits += keywords.count(w);
  return static_cast<double>(hits) / static_cast<double>(content.size());
}

std::string RenderSystemPrompt(const AgentProfile& profile) {
  std::string out = profile.system_prompt;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (!profile.conventions.empty()) {
    out += "\n\nConventions:";
    for (const auto& c : profile.conventions) out += "\n- " + c;
  }
  return out;
}

StatusOr<AgentProfile> ParseGeneratedProfile(std::string_view reply, std::string_view language) {
  size_t open = reply.find('{');
  size_t close = reply.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return BadProfile("from the model", "no JSON object in the reply");
  }
  // The model's reply: untrusted bytes, parsed within the default bounds.
  json j = ParseBoundedJsonOrDiscarded(reply.substr(open, close - open + 1), JsonBounds{});
  if (!j.is_object()) return BadProfile("from the model", "not a JSON object");
  AgentProfile p;
  auto str = [&](const char* key, std::string* out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string() || it->get<std::string>().empty()) {
      return BadProfile("from the model", std::string(key) + " must be a non-empty string");
    }
    *out = it->get<std::string>();
    return OkStatus();
  };
  std::string raw_name;
  CR_RETURN_IF_ERROR(str("name", &raw_name));
  CR_RETURN_IF_ERROR(str("description", &p.description));
  CR_RETURN_IF_ERROR(str("system_prompt", &p.system_prompt));
  auto kw = j.find("keywords");
  if (kw == j.end() || !kw->is_array() || kw->empty()) {
    return BadProfile("from the model", "keywords must be a non-empty array of strings");
  }
  for (const auto& k : *kw) {
    if (!k.is_string()) return BadProfile("from the model", "keywords must be strings");
    // Empty ones carry nothing for the matcher; dropping them beats failing.
    if (!k.get<std::string>().empty() && p.keywords.size() < kMaxGeneratedKeywords) {
      p.keywords.push_back(k.get<std::string>());
    }
  }
  if (p.keywords.empty()) return BadProfile("from the model", "keywords are all empty");
  // Optional (null counts as absent), but a wrong type means the model
  // misunderstood the format: better rejected than half-used.
  if (auto c = j.find("conventions"); c != j.end() && !c->is_null()) {
    if (!c->is_array())
      return BadProfile("from the model", "conventions must be an array of strings");
    for (const auto& x : *c) {
      if (!x.is_string()) return BadProfile("from the model", "conventions must be strings");
      if (!x.get<std::string>().empty()) p.conventions.push_back(x.get<std::string>());
    }
  }
  // The name becomes a file name: normalize it rather than trust it.
  for (char c : raw_name) {
    unsigned char u = static_cast<unsigned char>(c);
    char n = u < 0x80 && std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-';
    if (n == '-' && (p.name.empty() || p.name.back() == '-')) continue;
    p.name += n;
  }
  while (!p.name.empty() && p.name.back() == '-') p.name.pop_back();
  if (p.name.size() > 64) p.name.resize(64);
  while (!p.name.empty() && p.name.back() == '-') p.name.pop_back();
  if (p.name.empty()) p.name = "agent";
  p.language = std::string(language);
  CR_RETURN_IF_ERROR(Validate(p, "from the model"));
  return p;
}

StatusOr<std::unique_ptr<AgentCatalog>> AgentCatalog::Open(const std::string& extra_dir,
                                                           const std::string& store_dir) {
  std::unique_ptr<AgentCatalog> c(new AgentCatalog());
  for (const auto& [file, yaml] : BuiltinAgentYaml()) {
    CR_ASSIGN_OR_RETURN(AgentProfile p, FromYaml(yaml, "built-in " + std::string(file)));
    c->profiles_.push_back(std::move(p));
  }
  std::error_code ec;
  if (!extra_dir.empty()) {
    std::vector<fs::path> files;
    for (auto it = fs::directory_iterator(extra_dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      if (it->path().extension() == ".yaml" && it->is_regular_file()) files.push_back(it->path());
    }
    if (ec) {
      return InvalidArgumentError("intents.agents_dir " + extra_dir + ": " + ec.message(),
                                  "invalid_config");
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto text = ReadFile(f);
      if (!text.ok()) return BadProfile(f.string(), "unreadable");
      CR_ASSIGN_OR_RETURN(AgentProfile p, FromYaml(*text, f.string()));
      // Shared names must be unique: Find and the "-2" suffixes of Add
      // rely on it, and a silent shadowing would be a surprise.
      if (c->Find(p.name, "").has_value())
        return BadProfile(f.string(), "duplicate name " + p.name);
      c->profiles_.push_back(std::move(p));
    }
  }
  c->store_dir_ = store_dir;
  fs::create_directories(store_dir, ec);
  if (ec) {
    return InternalError("create " + store_dir + ": " + ec.message(), "agent_io");
  }
  for (auto t = fs::directory_iterator(store_dir, ec); !ec && t != fs::directory_iterator();
       t.increment(ec)) {
    if (!t->is_directory()) continue;
    std::error_code fec;
    for (auto f = fs::directory_iterator(t->path(), fec); !fec && f != fs::directory_iterator();
         f.increment(fec)) {
      if (f->path().extension() != ".json") continue;
      auto text = ReadFile(f->path());
      StatusOr<AgentProfile> p =
          text.ok() ? ProfileFromJson(json::parse(*text, nullptr, false), f->path().string())
                    : StatusOr<AgentProfile>(text.status());
      // A profile must sit where Add would have put it: anything else was
      // edited or copied by hand and could claim another tenant's name.
      std::string why;
      if (!p.ok()) {
        why = p.status().message();
      } else if (p->tenant != t->path().filename().string()) {
        why = "its tenant is not its directory";
      } else if (p->name + ".json" != f->path().filename().string()) {
        why = "its name is not its file name";
      }
      if (!why.empty()) {
        spdlog::warn("agents: skipping {}: {}", f->path().string(), why);
        continue;
      }
      p->builtin = false;
      c->profiles_.push_back(std::move(*p));
    }
    if (fec) spdlog::warn("agents: cannot list {}: {}", t->path().string(), fec.message());
  }
  if (ec) spdlog::warn("agents: cannot list {}: {}", store_dir, ec.message());
  return c;
}

std::optional<AgentMatch> AgentCatalog::BestMatch(std::string_view intent,
                                                  std::string_view language,
                                                  const std::string& tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::optional<AgentMatch> best;
  for (const auto& p : profiles_) {
    if (p.language != language || (!p.tenant.empty() && p.tenant != tenant)) continue;
    double score = MatchScore(intent, p);
    bool better = !best || score > best->score;
    if (best && score == best->score) {
      // Ties: the tenant's own profile, then the newest.
      bool own = !p.tenant.empty(), best_own = !best->profile.tenant.empty();
      better = own != best_own ? own : p.created_at_ms > best->profile.created_at_ms;
    }
    if (better) best = AgentMatch{p, score};
  }
  return best;
}

std::optional<AgentProfile> AgentCatalog::Find(const std::string& name,
                                               const std::string& tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& p : profiles_) {
    if (p.name == name && (p.tenant.empty() || p.tenant == tenant)) return p;
  }
  return std::nullopt;
}

StatusOr<std::string> AgentCatalog::Add(AgentProfile profile) {
  if (!ValidTenant(profile.tenant)) {
    return InvalidArgumentError("agent owner '" + profile.tenant + "' is not a valid tenant name",
                                "bad_agent_profile");
  }
  profile.builtin = false;
  // Ties in BestMatch go to the newest, so every created profile has a time.
  if (profile.created_at_ms == 0) profile.created_at_ms = WallClockMs();
  CR_RETURN_IF_ERROR(Validate(profile, profile.name));
  std::lock_guard<std::mutex> lock(mu_);
  auto taken = [&](const std::string& name) {
    return std::any_of(profiles_.begin(), profiles_.end(), [&](const AgentProfile& p) {
      return p.name == name && (p.tenant.empty() || p.tenant == profile.tenant);
    });
  };
  std::string base = profile.name.substr(0, 60);
  for (int n = 2; taken(profile.name); ++n) profile.name = base + "-" + std::to_string(n);
  fs::path dir = fs::path(store_dir_) / profile.tenant;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return InternalError("create " + dir.string() + ": " + ec.message(), "agent_io");
  // replace: invalid UTF-8 must not throw here; a U+FFFD in a stored prompt is harmless.
  std::string text = ToJson(profile).dump(2, ' ', false, json::error_handler_t::replace);
  CR_RETURN_IF_ERROR(WriteDurably(dir / (profile.name + ".json"), text));
  profiles_.push_back(profile);
  return profile.name;
}

std::vector<AgentProfile> AgentCatalog::List(const std::string& tenant) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<AgentProfile> out;
  for (const auto& p : profiles_) {
    if (p.tenant.empty() || p.tenant == tenant) out.push_back(p);
  }
  std::stable_sort(out.begin(), out.end(), [](const AgentProfile& a, const AgentProfile& b) {
    if (a.tenant.empty() != b.tenant.empty()) return a.tenant.empty();
    return a.name < b.name;
  });
  return out;
}

}  // namespace coderunner::intent
