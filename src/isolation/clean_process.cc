// Clean process: coderunner-init as PID 1 runs the job with exactly the
// allowlisted environment, stdin from a file or /dev/null, and no log driver
// (output is taken from the attach stream, never stored by the engine). A
// pooled container's init waits for its go message, and empties /tmp
// between the cases of a series; it prestarts the language's interpreter
// (isolation/prestart.h) while it waits.
// A job with an egress allowlist gets its proxy in HTTP(S)_PROXY, and init
// waits for the proxy before the job starts.
// Under gVisor it also enforces the CPU-time limit (-c), and does not ask
// init to check /output's mount flags, which gVisor does not show (-m).
#include "coderunner/isolation/mechanism.h"
#include "prestart.h"

namespace coderunner::isolation {
namespace {

// The proxy the service listens with inside the job's network namespace,
// in the job's environment; init waits for it before the job starts (-p).
void AddEgressProxy(nlohmann::json& cmd) {
  const std::string proxy = "http://127.0.0.1:" + std::to_string(egress::kEgressProxyPort);
  for (const char* var : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"}) {
    cmd.push_back("-e");
    cmd.push_back(std::string(var) + "=" + proxy);
  }
  cmd.push_back("-p");
  cmd.push_back(std::to_string(egress::kEgressProxyPort));
}

// A pooled container's init options: the go FIFO, /tmp emptied between
// the cases of a series (with /output), and the prestart's word count.
// Returns the prestart's words, which go before the job's command.
std::vector<std::string> AddPooled(const JobSpec& job, nlohmann::json& cmd) {
  cmd.push_back("-W");
  cmd.push_back(std::string(kWorkspaceMount) + "/" + std::string(kGoFifo));
  cmd.push_back("-t");
  cmd.push_back(std::string(kTmpMount));
  std::vector<std::string> prestart = PrestartWords(job);
  if (!prestart.empty()) {
    cmd.push_back("-P");
    cmd.push_back(std::to_string(prestart.size()));
  }
  return prestart;
}

class CleanProcess : public Mechanism {
 public:
  std::string_view name() const override { return "process"; }

  void Apply(const PolicySettings& settings, const ContainerContext& ctx,
             nlohmann::json& create) const override {
    const JobSpec& job = ctx.job;
    std::string program = std::string(kWorkspaceMount) + "/" + job.language.file;
    nlohmann::json cmd = nlohmann::json::array();
    std::vector<std::string> prestart;  // Words before the job's command (-P).
    for (const auto& kv : settings.env) {
      cmd.push_back("-e");
      cmd.push_back(kv);
    }
    if (job.egress) AddEgressProxy(cmd);
    if (ctx.pooled) {
      prestart = AddPooled(job, cmd);
    } else if (ctx.has_stdin) {
      cmd.push_back("-i");
      cmd.push_back(std::string(kWorkspaceMount) + "/" + std::string(kStdinFile));
    }
    if (!ctx.output.source.empty()) {
      cmd.push_back("-o");
      cmd.push_back(std::string(kOutputMount));
      for (auto [flag, value] :
           {std::pair{"-q", ctx.output.max_bytes}, std::pair{"-f", ctx.output.max_file_bytes},
            std::pair{"-n", ctx.output.max_entries}}) {
        if (value <= 0) continue;
        cmd.push_back(flag);
        cmd.push_back(std::to_string(value));
      }
      if (ctx.output.is_volume) cmd.push_back("-r");
      // init refuses a /output that is not nosuid,nodev (statvfs). gVisor
      // (runsc 20221219) shows no such mount flags at all, not even for a
      // tmpfs mounted nosuid: there the host mount the gofer opens /output
      // on carries them (host_mount.h), and no_new_privileges and CapDrop
      // ALL leave a setuid file or device node nothing to grant.
      if (EffectiveRuntime(settings, job) == kGvisorRuntime) cmd.push_back("-m");
    }
    // gVisor (runsc 20221219) never enforces RLIMIT_CPU (see
    // resource_limits.cc): init's own watchdog bounds the job's CPU time.
    if (EffectiveRuntime(settings, job) == kGvisorRuntime) {
      cmd.push_back("-c");
      cmd.push_back(std::to_string(job.limits.cpu_ms));
    }
    cmd.push_back("--");
    for (const auto& word : prestart) cmd.push_back(word);
    for (const auto& part : job.language.command) cmd.push_back(part == "{file}" ? program : part);
    // A pooled container gets the arguments with its "go" message.
    if (!ctx.pooled) {
      for (const auto& arg : job.args) cmd.push_back(arg);
    }
    create["Entrypoint"] = {std::string(kInitMount)};
    create["Cmd"] = cmd;
    // The container's own Env is init's alone (the job gets only -e): it
    // carries nothing but what init itself is told, such as the nonce.
    if (!create.contains("Env")) create["Env"] = nlohmann::json::array();
    if (!ctx.pooled && !ctx.eof_nonce.empty()) {
      create["Env"].push_back("CODERUNNER_EOF_NONCE=" + ctx.eof_nonce);
    }
    create["Tty"] = false;
    create["OpenStdin"] = false;
    create["AttachStdin"] = false;
    create["AttachStdout"] = true;
    create["AttachStderr"] = true;
    create["HostConfig"]["LogConfig"] = {{"Type", "none"}, {"Config", nlohmann::json::object()}};
  }

  Status Verify(const PolicySettings&, const ContainerContext&,
                const nlohmann::json& inspect) const override {
    const auto& ep = InspectField(inspect, "Config", "Entrypoint");
    nlohmann::json want = {std::string(kInitMount)};
    // Podman reports a one-element Entrypoint as a plain string.
    if (ep != want && ep != std::string(kInitMount)) {
      return PolicyMismatch(name(), "Config.Entrypoint", want, ep);
    }
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeCleanProcess() { return std::make_unique<CleanProcess>(); }

}  // namespace coderunner::isolation
