#include "npm_output.h"

#include <regex>
#include <sstream>

#include "coderunner/common/bounded_json.h"
#include "install_process.h"

namespace coderunner::packages {
namespace {

constexpr std::string_view kNodeModules = "node_modules/";
constexpr std::string_view kNested = "/node_modules/";

Status BadLock(const std::string& why) {
  return InternalError("npm's lockfile " + why, kReasonInstallFailed);
}

// "node_modules/a/node_modules/@s/b" -> "@s/b".
std::string NameAt(const std::string& path) {
  size_t at = path.rfind(kNested);
  return at == std::string::npos ? path.substr(kNodeModules.size())
                                 : path.substr(at + kNested.size());
}

// npm's lines after "npm error " (its own prefix), without the pointer to
// its debug log.
std::vector<std::string> ErrorLines(std::string_view output) {
  std::vector<std::string> out;
  std::istringstream lines{std::string(output)};
  for (std::string line; std::getline(lines, line);) {
    constexpr std::string_view kPrefix = "npm error ";
    if (line.rfind(kPrefix, 0) != 0) continue;
    line.erase(0, kPrefix.size());
    if (line.find("A complete log of this run") != std::string::npos) continue;
    out.push_back(line);
  }
  return out;
}

}  // namespace

StatusOr<std::vector<LockedPackage>> ParseNpmHiddenLock(std::string_view lockfile_json) {
  auto parsed = ParseBoundedJson(lockfile_json, {.max_depth = 16, .max_bytes = kMaxNpmLockBytes});
  if (!parsed.ok()) return BadLock("is not JSON: " + parsed.status().message());
  const nlohmann::json& file = *parsed;
  if (!file.is_object() || !file.contains("packages") || !file["packages"].is_object()) {
    return BadLock("lists no packages");
  }
  nlohmann::json lock = nlohmann::json::array();
  for (const auto& [path, entry] : file["packages"].items()) {
    if (path.empty()) continue;  // The root: the install itself.
    if (!entry.is_object() || path.rfind(kNodeModules, 0) != 0) {
      return BadLock("has an entry that is not a package: " + QuoteInstallerWords(path));
    }
    const std::string name = NameAt(path);
    if (entry.value("link", false) || !entry.contains("integrity") ||
        entry.value("name", name) != name) {
      return FailedPreconditionError(
          "package '" + name +
              "' does not come from the registry by its own name (a git, file "
              "or alias dependency)",
          kReasonPackageRefused);
    }
    lock.push_back({{"name", name},
                    {"version", entry.value("version", "")},
                    {"integrity", entry.value("integrity", "")},
                    {"path", path}});
  }
  auto out = ParseLock(Ecosystem::kNpm, lock);
  if (!out.ok()) return BadLock("names a package oddly: " + out.status().message());
  return out;
}

NpmReplayFiles MakeNpmReplayFiles(const std::vector<LockedPackage>& pinned) {
  nlohmann::json top = nlohmann::json::object();
  nlohmann::json packages = nlohmann::json::object();
  for (const auto& p : pinned) {
    packages[p.path] = {{"version", p.version}, {"integrity", p.integrity}};
  }
  for (const auto& p : pinned) {
    size_t at = p.path.rfind(kNested);
    if (at == std::string::npos) {
      top[p.name] = p.version;
    } else {
      packages[p.path.substr(0, at)]["dependencies"][p.name] = p.version;
    }
  }
  packages[""] = {{"dependencies", top}};
  nlohmann::json manifest = {
      {"name", "coderunner-replay"}, {"private", true}, {"dependencies", top}};
  nlohmann::json lockfile = {{"name", "coderunner-replay"},
                             {"lockfileVersion", 3},
                             {"requires", true},
                             {"packages", packages}};
  return {manifest.dump(), lockfile.dump()};
}

Status NpmFailure(int exit_code, std::string_view output) {
  const std::vector<std::string> lines = ErrorLines(output);
  std::string code;
  for (const auto& line : lines) {
    if (line.rfind("code ", 0) == 0) code = line.substr(5);
  }
  const std::string text(output);
  std::smatch m;
  if (code == "E404") {
    static const std::regex kMissing(R"('([^']+)' (?:could not be found|is not in this registry))");
    std::string what = std::regex_search(text, m, kMissing) ? m[1].str() : "";
    if (what.size() > 2 && what.compare(what.size() - 2, 2, "@*") == 0)
      what.resize(what.size() - 2);
    return NotFoundError("package '" + what + "': the registry has no such package",
                         kReasonPackageNotFound);
  }
  if (code == "ETARGET") {
    static const std::regex kNoVersion(R"(No matching version found for (\S+?)\.?\n)");
    std::string what = std::regex_search(text, m, kNoVersion) ? m[1].str() : "";
    return NotFoundError("package '" + what + "': no version on the registry matches",
                         kReasonPackageNotFound);
  }
  if (code == "ERESOLVE") {
    std::string why;
    for (const auto& line : lines) {
      // "Found: crleft@1.1.0", "peer crleft@"^2.0.0" from crpeer@1.0.0".
      if (line.rfind("Found: ", 0) == 0 || line.rfind("peer ", 0) == 0) {
        why += (why.empty() ? "" : "; ") + line;
      }
    }
    return FailedPreconditionError(
        "the packages asked for conflict" +
            (why.empty() ? std::string() : ": " + QuoteInstallerWords(why)),
        kReasonPackageConflict);
  }
  if (code == "EINTEGRITY") {
    return FailedPreconditionError(
        "a package of the replayed set is no longer the file it was on the registry",
        kReasonPackageChanged);
  }
  if (code == "EFBIG") {
    return ResourceExhaustedError(
        "a file of the packages is larger than the service allows (packages.max_installed_bytes)",
        kReasonPackagesTooLarge);
  }
  if (code == "ECONNREFUSED" || code == "ECONNRESET" || code == "ETIMEDOUT" ||
      code == "ENOTFOUND" || code == "EAI_AGAIN") {
    return UnavailableError("the npm registry stopped answering (" + code + ")",
                            kReasonMirrorUnavailable);
  }
  std::string last = lines.empty() ? "" : lines.back();
  return InternalError("npm failed (exit code " + std::to_string(exit_code) +
                           (code.empty() ? "" : ", " + code) + ")" +
                           (last.empty() ? std::string() : ": " + QuoteInstallerWords(last)),
                       kReasonInstallFailed);
}

}  // namespace coderunner::packages
