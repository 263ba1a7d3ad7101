#include "pip_output.h"

#include <regex>
#include <sstream>

#include "coderunner/common/bounded_json.h"
#include "install_process.h"

namespace coderunner::packages {
namespace {

Status BadReport(const std::string& why) {
  return InternalError("pip's installation report " + why, kReasonInstallFailed);
}

std::string Sha256Of(const nlohmann::json& item) {
  const auto& info = item.value("download_info", nlohmann::json::object());
  const auto& archive = info.value("archive_info", nlohmann::json::object());
  const auto& hashes = archive.value("hashes", nlohmann::json::object());
  if (hashes.is_object() && hashes.contains("sha256") && hashes["sha256"].is_string()) {
    return hashes["sha256"];
  }
  std::string hash = archive.value("hash", "");
  return hash.rfind("sha256=", 0) == 0 ? hash.substr(7) : "";
}

}  // namespace

StatusOr<std::vector<LockedPackage>> ParsePipReport(std::string_view report_json) {
  auto parsed = ParseBoundedJson(report_json, {.max_depth = 32, .max_bytes = kMaxPipReportBytes});
  if (!parsed.ok()) return BadReport("is not JSON: " + parsed.status().message());
  const nlohmann::json& report = *parsed;
  if (!report.is_object() || !report.contains("install") || !report["install"].is_array()) {
    return BadReport("lists no installation");
  }
  // Each entry as a lock records it, read back as a replay's lock is:
  // names, versions and hashes only, sorted by name.
  nlohmann::json lock = nlohmann::json::array();
  for (const auto& item : report["install"]) {
    if (!item.is_object() || !item.contains("metadata") || !item["metadata"].is_object()) {
      return BadReport("has an entry without metadata");
    }
    const auto& meta = item["metadata"];
    auto name = meta.find("name");
    auto version = meta.find("version");
    if (name == meta.end() || !name->is_string() || version == meta.end() ||
        !version->is_string()) {
      return BadReport("has an entry without a name and version");
    }
    lock.push_back({{"name", *name}, {"version", *version}, {"sha256", Sha256Of(item)}});
  }
  auto out = ParseLock(Ecosystem::kPython, lock);
  if (!out.ok()) return BadReport("names a package oddly: " + out.status().message());
  return out;
}

Status PipFailure(int exit_code, std::string_view output) {
  const std::string text(output);
  static const std::regex kNoVersion(
      R"(Could not find a version that satisfies the requirement (\S+) \(from versions: ([^)]*)\))");
  std::smatch m;
  if (std::regex_search(text, m, kNoVersion)) {
    const std::string versions = m[2].str();
    if (versions == "none") {
      return NotFoundError("package '" + m[1].str() + "': the index has no such package",
                           kReasonPackageNotFound);
    }
    return NotFoundError("package '" + m[1].str() + "': no version matches; the index has " +
                             QuoteInstallerWords(versions),
                         kReasonPackageNotFound);
  }
  if (text.find("ResolutionImpossible") != std::string::npos ||
      text.find("conflicting dependencies") != std::string::npos) {
    static const std::regex kDepends(R"(\n\s*(\S+ \S+ depends on \S+))");
    std::string why;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kDepends);
         it != std::sregex_iterator(); ++it) {
      why += (why.empty() ? "" : "; ") + (*it)[1].str();
    }
    return FailedPreconditionError(
        "the packages asked for conflict" +
            (why.empty() ? std::string() : ": " + QuoteInstallerWords(why)),
        kReasonPackageConflict);
  }
  // A replay's pinned file is not the one the index serves now.
  if (text.find("DO NOT MATCH THE HASHES") != std::string::npos) {
    return FailedPreconditionError(
        "a package of the replayed set is no longer the file it was on the index",
        kReasonPackageChanged);
  }
  // RLIMIT_FSIZE refused a write (EFBIG), and pip said so.
  if (text.find("[Errno 27]") != std::string::npos) {
    return ResourceExhaustedError(
        "a file of the packages is larger than the service allows (packages.max_installed_bytes)",
        kReasonPackagesTooLarge);
  }
  std::string last;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("ERROR:", 0) == 0) last = line;
  }
  return InternalError("pip failed (exit code " + std::to_string(exit_code) + ")" +
                           (last.empty() ? std::string() : ": " + QuoteInstallerWords(last)),
                       kReasonInstallFailed);
}

}  // namespace coderunner::packages
