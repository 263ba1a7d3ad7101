#include "coderunner/service/service.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <utility>

#include "components.h"
#include "startup_steps.h"

namespace coderunner::service {
namespace {

// The signals that stop the service.
sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void BlockStopSignals() {
  sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

StatusOr<std::unique_ptr<Service>> Service::Create(const config::Config& config) {
  auto components = std::make_unique<Components>(config);
  CR_RETURN_IF_ERROR(StartupSteps(*components).Run());
  return std::unique_ptr<Service>(new Service(std::move(components)));
}

Service::Service(std::unique_ptr<Components> components) : c_(std::move(components)) {}

Service::~Service() = default;

int Service::port() const { return c_->server->port(); }

void Service::Shutdown() {
  c_->server->Stop();
  c_->job_service->Drain(std::chrono::seconds(c_->cfg.server.shutdown_grace_s));
  // A node leaving cleanly leaves the registry (a dead one stays, aging).
  if (c_->heartbeat) c_->heartbeat->Stop(/*leave=*/true);
}

Status Service::Run() {
  // Stop on SIGINT/SIGTERM from a dedicated thread: httplib's stop() is not
  // async-signal-safe, so no work happens in a signal handler. The listener
  // closes at once; running jobs get server.shutdown_grace_s to finish and
  // are re-queued after it (JobService::Drain), which also wakes the
  // handlers waiting on them, so Serve returns.
  std::thread signals([this] {
    sigset_t set = StopSignals();
    int sig = 0;
    sigwait(&set, &sig);
    spdlog::info("signal {}: stopping; running jobs get up to {} s (server.shutdown_grace_s)", sig,
                 c_->cfg.server.shutdown_grace_s);
    Shutdown();
  });
  // A client that disconnects mid-response must not kill the process.
  signal(SIGPIPE, SIG_IGN);

  spdlog::info("coderunner listening on {} (port {})", c_->cfg.server.listen, port());
  Status served = c_->server->Serve();
  // Serve ended on its own (an error): wake the signal thread to drain.
  if (!served.ok()) kill(getpid(), SIGTERM);
  signals.join();
  // Queued and re-queued jobs stay durable for the next start.
  if (c_->notices) c_->notices->Stop();  // No wake-up reaches a stopping service.
  c_->job_service->Stop();
  if (c_->sandboxes) c_->sandboxes->Stop();  // None in native mode.
  c_->pool->Stop();
  return served;
}

}  // namespace coderunner::service
