// The pip backend: the host's pip (forked from the zygote), wheels only,
// for the Python that jobs run; its report read back as the lock.
#include "install_backend.h"
#include "pip_output.h"
#include "pip_zygote.h"
#include "platform_tags.h"

namespace coderunner::packages {
namespace {

constexpr char kPythonSubdir[] = "python";  // The layer's PYTHONPATH entry.
constexpr char kReportFile[] = "report.json";
constexpr char kPinsFile[] = "pins.txt";

// A replay's requirements file: each pinned file by name, version and hash
// (pip --require-hashes), written by the service before pip runs.
Status WritePins(const std::string& path, const std::vector<LockedPackage>& pinned) {
  std::string text;
  for (const auto& p : pinned)
    text += p.name + "==" + p.version + " --hash=sha256:" + p.sha256 + "\n";
  return WriteNewFile(path, text, -1);
}

// "3.11" -> "cp311": the ABI of CPython wheels built for that version.
std::string CpythonAbi(const std::string& version) {
  std::string digits;
  for (char c : version) {
    if (c != '.') digits.push_back(c);
  }
  return "cp" + digits;
}

class PipBackend : public InstallBackend {
 public:
  explicit PipBackend(const config::PackagesConfig& config) : config_(config) {}

  const char* layer_subdir() const override { return kPythonSubdir; }
  std::string ProbeUrl(const std::string& index_url) const override { return index_url; }
  std::string Tree(const std::string& staging) const override {
    return staging + "/" + kPythonSubdir;
  }

  StatusOr<InstallCommand> Command(const std::string& staging, int64_t /*uid*/,
                                   const std::string& index_url,
                                   const std::vector<Requirement>& reqs,
                                   const std::vector<LockedPackage>& pinned) const override {
    // What pip is asked for: the requirements, or a replay's pinned files.
    std::vector<std::string> wanted;
    for (const auto& r : reqs) wanted.push_back(r.Text());
    if (!pinned.empty()) {
      const std::string pins = staging + "/" + kPinsFile;
      CR_RETURN_IF_ERROR(WritePins(pins, pinned));
      wanted = {"--no-deps", "--require-hashes", "-r", pins};
    }
    InstallCommand cmd;
    cmd.argv = PipArgs(staging, index_url, wanted);
    cmd.env = {{"PATH", "/usr/bin:/bin"},
               {"HOME", staging},
               {"TMPDIR", staging},
               {"LANG", "C.UTF-8"},
               {"PIP_CONFIG_FILE", "/dev/null"},
               {"PYTHONNOUSERSITE", "1"}};
    cmd.cwd = staging;
    return cmd;
  }

  StatusOr<std::vector<LockedPackage>> ReadLock(const std::string& staging) const override {
    return ParsePipReport(ReadTail(staging + "/" + kReportFile, kMaxPipReportBytes));
  }

  Status Failure(const InstallRun& run) const override {
    return PipFailure(run.exit_code, run.output);
  }

 private:
  std::vector<std::string> PipArgs(const std::string& staging, const std::string& index_url,
                                   const std::vector<std::string>& wanted) const {
    std::vector<std::string> argv = {kZygotePip};
    // --no-warn-conflicts: pip would check the set against every package
    // of the host's own Python (measured: nine tenths of an install's
    // time), which says nothing of a --target layer.
    for (const char* arg : {"install", "--no-cache-dir", "--disable-pip-version-check",
                            "--no-input", "--no-color", "--progress-bar", "off", "--retries", "0",
                            "--timeout", "15", "--only-binary=:all:", "--ignore-installed",
                            "--no-warn-conflicts", "--implementation", "cp"}) {
      argv.push_back(arg);
    }
    argv.insert(argv.end(), {"--index-url", index_url});
    argv.insert(argv.end(), {"--python-version", config_.python_version});
    argv.insert(argv.end(), {"--abi", CpythonAbi(config_.python_version)});
    for (const auto& platform : ExpandPlatforms(config_.python_platforms)) {
      argv.insert(argv.end(), {"--platform", platform});
    }
    argv.insert(argv.end(), {"--target", staging + "/" + kPythonSubdir});
    argv.insert(argv.end(), {"--report", staging + "/" + kReportFile});
    argv.insert(argv.end(), wanted.begin(), wanted.end());
    return argv;
  }

  const config::PackagesConfig& config_;
};

}  // namespace

std::unique_ptr<InstallBackend> MakePipBackend(const config::PackagesConfig& config) {
  return std::make_unique<PipBackend>(config);
}

}  // namespace coderunner::packages
