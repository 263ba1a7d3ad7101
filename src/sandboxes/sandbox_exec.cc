#include "sandbox_exec.h"

#include "coderunner/engine/stream_demux.h"
#include "coderunner/isolation/mechanism.h"

namespace coderunner::sandboxes {

std::vector<std::string> UnderJobFilter(std::vector<std::string> command) {
  command.insert(command.begin(), {std::string(isolation::kInitMount), "-x", "--"});
  return command;
}

std::vector<std::string> EnvList(const std::map<std::string, std::string>& envs) {
  std::vector<std::string> out;
  out.reserve(envs.size());
  for (const auto& [name, value] : envs) out.push_back(name + "=" + value);
  return out;
}

StatusOr<ExecOutput> RunInSandbox(engine::ExecClient& execs, const ExecTarget& target,
                                  std::vector<std::string> command, const std::string& cwd,
                                  size_t max_stdout, std::chrono::milliseconds timeout) {
  engine::ExecSpec spec{UnderJobFilter(std::move(command)), target.user, cwd, EnvList(target.envs)};
  CR_ASSIGN_OR_RETURN(std::string exec_id, execs.Create(target.container_id, spec));
  ExecOutput out;
  bool too_large = false;
  engine::StreamDemuxer demux([&](engine::StreamId stream, std::string_view bytes) {
    if (stream == engine::StreamId::kStdout) {
      if (out.stdout_data.size() + bytes.size() > max_stdout) {
        too_large = true;
        return;
      }
      out.stdout_data.append(bytes);
    } else if (out.stderr_data.size() < kExecStderrBytes) {
      out.stderr_data.append(bytes.substr(0, kExecStderrBytes - out.stderr_data.size()));
    }
  });
  Status streamed = execs.Start(
      exec_id, [&](std::string_view chunk) { return demux.Feed(chunk).ok() && !too_large; },
      timeout);
  if (too_large) {
    return ResourceExhaustedError("the output is over " + std::to_string(max_stdout) + " bytes",
                                  kReasonSandboxOutputTooLarge);
  }
  CR_RETURN_IF_ERROR(streamed);
  CR_ASSIGN_OR_RETURN(engine::ExecState state, execs.Inspect(exec_id));
  out.exit_code = state.running ? -1 : state.exit_code;
  return out;
}

}  // namespace coderunner::sandboxes
