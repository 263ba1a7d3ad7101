// coderunner: parses the command line and starts the service (src/service/)
// or a client subcommand (src/cli/).
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <string>

#include "coderunner/cli/cli_main.h"
#include "coderunner/common/logging.h"
#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/service/service.h"

namespace {

using namespace coderunner;  // NOLINT: main only wires.

// Exit codes of `coderunner serve`.
constexpr int kExitStopped = 0;        // Stopped by SIGINT/SIGTERM.
constexpr int kExitServeFailed = 1;    // Serving failed after startup.
constexpr int kExitStartupFailed = 2;  // Config, logging or a startup step failed.

// Reports a startup failure, once, on stderr, with its reason when it says
// more than the code (e.g. "(store_password_unset)").
int StartupFailed(const Status& status) {
  std::cerr << "coderunner: " << status.message();
  if (!status.reason().empty() && status.reason() != StatusCodeName(status.code())) {
    std::cerr << " (" << status.reason() << ")";
  }
  std::cerr << "\n";
  return kExitStartupFailed;
}

int Serve(const std::string& config_path) {
  // Before any thread (pool, workers) starts: see service.h.
  service::BlockStopSignals();
  StatusOr<config::Config> loaded = config_path.empty()
                                        ? StatusOr<config::Config>(config::DefaultConfig())
                                        : config::LoadConfigFile(config_path);
  if (!loaded.ok()) return StartupFailed(loaded.status());
  Status logging = ConfigureLogging(loaded->log_level, loaded->log_format);
  if (!logging.ok()) return StartupFailed(logging);
  StatusOr<std::unique_ptr<service::Service>> created = service::Service::Create(*loaded);
  if (!created.ok()) return StartupFailed(created.status());
  Status served = (*created)->Run();
  if (!served.ok()) {
    spdlog::error("{}", served.message());
    return kExitServeFailed;
  }
  return kExitStopped;
}

}  // namespace

int main(int argc, char** argv) {
  // Job output passes through transient buffers of a few MiB (results,
  // redacted copies, JSON). A fixed mmap threshold keeps such blocks out of
  // the heap, so freeing them returns the memory at once; glibc's default
  // raises the threshold after the first large free, and the heap then
  // keeps up to tens of MiB of them across jobs.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  // Subcommands (serve and the client commands) are parsed in src/cli/.
  return cli::Main(argc, argv, Serve);
}
