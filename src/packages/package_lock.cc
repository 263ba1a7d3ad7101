// The lock as results record it, and as a replay reads it back.
#include <algorithm>
#include <cctype>

#include "coderunner/common/sha256.h"
#include "coderunner/packages/package_installer.h"

namespace coderunner::packages {
namespace {

// The sha512 of an npm tarball as registries give it: "sha512-" and 64
// bytes in base64.
constexpr char kSha512Prefix[] = "sha512-";
constexpr size_t kSha512Base64Bytes = 88;
constexpr std::string_view kNpmPathStep = "node_modules/";

bool IsSha512Integrity(const std::string& s) {
  const size_t prefix = sizeof(kSha512Prefix) - 1;
  if (s.size() != prefix + kSha512Base64Bytes || s.compare(0, prefix, kSha512Prefix) != 0) {
    return false;
  }
  for (size_t i = prefix; i < s.size(); ++i) {
    const char c = s[i];
    const bool pad = c == '=' && i >= s.size() - 2;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && !pad) return false;
  }
  return s.back() == '=';
}

// "node_modules/a/node_modules/@s/b" for `name` "@s/b": each step a name.
bool IsNpmPathOf(std::string_view path, const std::string& name) {
  std::string_view last;
  while (!path.empty()) {
    if (path.substr(0, kNpmPathStep.size()) != kNpmPathStep) return false;
    path.remove_prefix(kNpmPathStep.size());
    size_t end = path.find('/');
    if (!path.empty() && path.front() == '@' && end != std::string_view::npos) {
      end = path.find('/', end + 1);
    }
    last = path.substr(0, end);
    if (!ParseNpmRequirement(last).ok() || last.find('@', 1) != std::string_view::npos) {
      return false;
    }
    path.remove_prefix(end == std::string_view::npos ? path.size() : end + 1);
  }
  return last == name;
}

StatusOr<LockedPackage> PythonEntry(const nlohmann::json& entry) {
  const std::string name = entry.value("name", "");
  const std::string version = entry.value("version", "");
  const std::string sha = entry.value("sha256", "");
  CR_ASSIGN_OR_RETURN(Requirement req, ParseRequirement(name + "==" + version));
  if (!IsSha256Hex(sha)) {
    return InvalidArgumentError("lock entry " + req.name + ": sha256 is not 64 hex digits",
                                kReasonInvalidPackage);
  }
  return LockedPackage{req.name, version, sha, "", ""};
}

StatusOr<LockedPackage> NpmEntry(const nlohmann::json& entry) {
  LockedPackage p{entry.value("name", ""), entry.value("version", ""), "",
                  entry.value("integrity", ""), entry.value("path", "")};
  CR_ASSIGN_OR_RETURN(Requirement req, ParseNpmRequirement(p.name + "@" + p.version));
  if (req.name != p.name || p.version.empty() || p.version.find(' ') != std::string::npos) {
    return InvalidArgumentError("lock entry " + p.name + ": not a name and a version",
                                kReasonInvalidPackage);
  }
  if (!IsSha512Integrity(p.integrity)) {
    return InvalidArgumentError("lock entry " + p.name + ": integrity is not a sha512",
                                kReasonInvalidPackage);
  }
  if (!IsNpmPathOf(p.path, p.name)) {
    return InvalidArgumentError("lock entry " + p.name + ": path is not node_modules/" + p.name,
                                kReasonInvalidPackage);
  }
  return p;
}

}  // namespace

nlohmann::json LockToJson(const std::vector<LockedPackage>& lock) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : lock) {
    nlohmann::json entry = {{"name", p.name}, {"version", p.version}};
    if (!p.sha256.empty()) entry["sha256"] = p.sha256;
    if (!p.integrity.empty()) entry["integrity"] = p.integrity;
    if (!p.path.empty()) entry["path"] = p.path;
    out.push_back(std::move(entry));
  }
  return out;
}

StatusOr<std::vector<LockedPackage>> ParseLock(Ecosystem ecosystem, const nlohmann::json& lock) {
  std::vector<LockedPackage> out;
  if (lock.is_null()) return out;
  if (!lock.is_array()) return InvalidArgumentError("a lock is an array", kReasonInvalidPackage);
  for (const auto& entry : lock) {
    if (!entry.is_object())
      return InvalidArgumentError("a lock entry is an object", kReasonInvalidPackage);
    CR_ASSIGN_OR_RETURN(LockedPackage p,
                        ecosystem == Ecosystem::kNpm ? NpmEntry(entry) : PythonEntry(entry));
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.path != b.path ? a.path < b.path : a.name < b.name;
  });
  return out;
}

}  // namespace coderunner::packages
