#include "coderunner/config/config.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config_checks.h"
#include "config_sections.h"
#include "config_toml.h"
#include "toml_config.h"

namespace coderunner::config {
namespace {

// The node image's TypeScript runner (images/node/ts-run.cjs): main.ts as
// `tsx main.ts` runs it, CommonJS with require and import, and as an ES
// module when it uses top-level await.
constexpr char kTypeScriptRunner[] = "/usr/local/lib/coderunner-npm/ts-run.cjs";
constexpr char kGccImage[] = "coderunner/gcc:12";
// A compiled language's compile step writes the program into its /output;
// the run finds it in its workspace (isolation/compiling_runner.h).
constexpr char kCompiledOutput[] = "/output/main";
constexpr char kCompiledProgram[] = "/workspace/main";
// The java image's org.javatuples (Debian's libjavatuples-java).
constexpr char kJavaTuplesJar[] = "/usr/share/java/javatuples.jar";

// The built-in python's preload: the data stack of its image, the modules
// whose import costs a data program most of its start.
const std::vector<std::string>& PythonPreload() {
  static const std::vector<std::string> modules = {"numpy", "pandas", "matplotlib",
                                                   "matplotlib.pyplot"};
  return modules;
}

// The built-in languages as listed, before the prestart and preload.
std::vector<LanguageSpec> ListedLanguages() {
  return {
      {"python", "coderunner/python:3.11", "main.py", {"python3", "{file}"}, true, "", {}, {}},
      {"javascript", "coderunner/node:20", "main.js", {"node", "{file}"}, false, "", {"js"}, {}},
      {"typescript",
       "coderunner/node:20",
       "main.ts",
       {"node", kTypeScriptRunner, "{file}"},
       false,
       "",
       {"ts"},
       {}},
      {"bash", "coderunner/bash:5", "main.sh", {"bash", "{file}"}, false, "", {}, {}},
      {"c",
       kGccImage,
       "main.c",
       {kCompiledProgram},
       false,
       "",
       {},
       {"gcc", "-O2", "-std=gnu17", "-pipe", "-o", kCompiledOutput, "{file}", "-lm"}},
      {"cpp",
       kGccImage,
       "main.cpp",
       {kCompiledProgram},
       false,
       "",
       {"c++"},
       {"g++", "-O2", "-std=gnu++17", "-pipe", "-o", kCompiledOutput, "{file}"}},
      // No C compiler in the image: cgo stays off (Go 1.19 would look for
      // gcc as soon as a program imports net or os/user).
      {"go",
       "coderunner/go:1.19",
       "main.go",
       {kCompiledProgram},
       false,
       "",
       {"golang"},
       {"env", "CGO_ENABLED=0", "go", "build", "-o", kCompiledOutput, "{file}"}},
      // The class is Main, as on most judges; every class file of the build
      // lands in /workspace. org.javatuples is on the class path and
      // assertions are on (-ea), as generated Java and its tests expect.
      {"java",
       "coderunner/java:17",
       "Main.java",
       {"java", "-ea", "-cp", "/workspace:" + std::string(kJavaTuplesJar), "Main"},
       false,
       "",
       {},
       {"javac", "-encoding", "UTF-8", "-cp", kJavaTuplesJar, "-d", "/output", "{file}"}},
      // Without its standard library's debug info: 0.4 MB, not 11.
      {"rust",
       "coderunner/rust:1.63",
       "main.rs",
       {kCompiledProgram},
       false,
       "",
       {"rs"},
       {"rustc", "-O", "--edition", "2021", "-C", "strip=debuginfo", "-o", kCompiledOutput,
        "{file}"}},
  };
}

// The built-in languages (config/coderunner.yaml shows each).
std::vector<LanguageSpec> DefaultLanguages() {
  std::vector<LanguageSpec> languages = ListedLanguages();
  for (LanguageSpec& l : languages) {
    if (l.name == "python") {
      l.prestart = {"python3", "-c", kPythonPrestartWord};
      l.preload = PythonPreload();
    } else if (l.name == "javascript" || l.name == "typescript") {
      l.prestart = {"node", "-e", kNodePrestartWord};
    }
  }
  return languages;
}

StatusOr<Config> ParseNode(const YAML::Node& root) {
  Config c = DefaultConfig();
  if (!root || root.IsNull()) return c;
  CR_RETURN_IF_ERROR(ReadRoot(root, &c));
  CR_RETURN_IF_ERROR(CheckAcross(c));
  return c;
}

}  // namespace

std::string AdvertiseUrl(const Config& c, std::string_view hostname) {
  if (!c.node.advertise_url.empty()) return c.node.advertise_url;
  const std::string& listen = c.server.listen;
  const size_t colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  const std::string port = colon == std::string::npos ? "" : listen.substr(colon + 1);
  if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::" || host == "*") {
    host = std::string(hostname);
  }
  return "http://" + host + (port.empty() ? "" : ":" + port);
}

const LanguageSpec& Config::DefaultLanguage() const {
  for (const auto& l : languages) {
    if (l.is_default) return l;
  }
  return languages.front();
}

std::vector<std::string> Config::JobWriteDirs() const {
  return {data_dir, workspace_dir, artifacts.dir};
}

ArtifactCaps Config::ArtifactCapsFromConfig() const {
  ArtifactCaps caps;
  caps.max_file_bytes = artifacts.max_file_bytes;
  caps.max_total_bytes = artifacts.max_total_bytes;
  caps.max_files = artifacts.max_files;
  return caps;
}

const TierConfig* Config::FindTier(std::string_view name) const {
  for (const auto& t : tiers) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const TierConfig* Config::TierOfTenant(std::string_view tenant) const {
  for (const auto& k : auth.keys) {
    if (k.tenant == tenant) return FindTier(k.tier);
  }
  return FindTier(auth.none_tier);
}

const LanguageSpec* Config::FindLanguage(std::string_view name) const {
  for (const auto& l : languages) {
    if (l.name == name) return &l;
  }
  for (const auto& l : languages) {
    for (const auto& a : l.aliases) {
      if (a == name) return &l;
    }
  }
  return nullptr;
}

Config DefaultConfig() {
  // Enterprise's Execute-mode budget: configurable, at least business's.
  constexpr int64_t kEnterpriseBudgetMs = 600000;
  Config c;
  c.max_limits.timeout_ms = 60000;
  c.max_limits.cpu_ms = 60000;
  c.max_limits.memory_bytes = 1LL << 30;
  c.max_limits.pids = 256;
  c.max_limits.output_bytes = 8LL << 20;
  c.max_limits.tmp_bytes = 512LL << 20;
  c.max_limits.cpus = 2.0;
  // Tiers of the Execute-mode seed: free 30 s without volumes, pro 2 min,
  // business 10 min, enterprise configurable (business's 10 min by default,
  // the global memory maximum).
  // Retained artifacts and stored output per tenant grow 8x a tier. No
  // tier has packages of its own (its index, allow and deny lists), nor an
  // egress allowlist, nor a verify step of its own.
  using Names = std::vector<std::string>;
  c.tiers = {
      {"free",  30000,       268435456, false,   2,       20,          60,         "",
       2,       512LL << 20, 3600,      86400,   0,       256LL << 20, 64LL << 20, "",
       Names(), Names(),     "",        Names(), Names(), Names(),     Names(),    ""},
      {"pro",   120000,    1073741824, true,       4,       100,       600,         "",
       10,      4LL << 30, 3600,       14 * 86400, 0,       2LL << 30, 512LL << 20, "",
       Names(), Names(),   "",         Names(),    Names(), Names(),   Names(),     ""},
      {"business", 600000,     4294967296, true,       8,       500,        3000,      "",
       50,         32LL << 30, 3600,       14 * 86400, 0,       16LL << 30, 4LL << 30, "",
       Names(),    Names(),    "",         Names(),    Names(), Names(),    Names(),   ""},
      {"enterprise",
       kEnterpriseBudgetMs,
       c.max_limits.memory_bytes,
       true,
       64,
       10000,
       60000,
       "",
       1000,
       1LL << 40,
       3600,
       14 * 86400,
       0,
       128LL << 30,
       32LL << 30,
       "",
       Names(),
       Names(),
       "",
       Names(),
       Names(),
       Names(),
       Names(),
       ""},
  };
  c.languages = DefaultLanguages();
  return c;
}

StatusOr<Config> ParseConfig(std::string_view yaml_text) {
  // yaml-cpp reports errors by exception; this is its boundary.
  try {
    return ParseNode(YAML::Load(std::string(yaml_text)));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string("config: ") + e.what(), "invalid_config");
  }
}

StatusOr<Config> ParseConfigToml(std::string_view toml_text) {
  StatusOr<YAML::Node> root = TomlToYaml(toml_text);
  if (!root.ok()) return root.status();
  return ParseNode(*root);
}

StatusOr<Config> LoadConfigFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return NotFoundError("config: " + path + " is not a readable file", "config_not_found");
  }
  std::ifstream in(path);
  if (!in) return NotFoundError("config: cannot read " + path, "config_not_found");
  std::stringstream ss;
  ss << in.rdbuf();
  bool toml = std::filesystem::path(path).extension() == ".toml";
  auto c = toml ? ParseConfigToml(ss.str()) : ParseConfig(ss.str());
  if (!c.ok()) return c.status().WithContext(path);
  return c;
}

}  // namespace coderunner::config
