// Service: the composition root. Builds every component of the coderunner
// service from its config, in order, as a list of named startup steps, and
// runs it until SIGINT or SIGTERM.
#ifndef CODERUNNER_SERVICE_SERVICE_H_
#define CODERUNNER_SERVICE_SERVICE_H_

#include <memory>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"

namespace coderunner::service {

struct Components;

// Blocks SIGINT and SIGTERM in the calling thread. Every thread started
// afterwards inherits the mask, so these signals only ever reach the
// thread Service::Run waits for them on. Call from the main thread before
// any other thread starts (before Service::Create). Not thread-safe.
void BlockStopSignals();

class Service {
 public:
  // Builds the service from `config` (copied; it must already be valid, as
  // config::LoadConfigFile returns it): resolves the engine socket, checks
  // the coderunner-init binary, creates workspace_dir, artifacts.dir and
  // volumes.dir and bind-mounts the last two onto themselves nosuid,nodev
  // when they are not already, builds the engine clients and probes the
  // engine (an engine not reachable yet is only logged), opens the job
  // store, loads the webhook secret, builds Execute mode when llm.base_url
  // is set, recovers the queued jobs and starts the job workers, starts the
  // warm pool and the stateful sandboxes, and binds server.listen. Logs
  // what it finds (spdlog) as it goes.
  //
  // Stops at the first step that fails and returns its Status with the
  // message "<step>: <message>" (e.g. "init binary: coderunner-init not
  // found ..."); everything built so far is torn down before it returns.
  // The caller owns the returned Service. Call once per process, from the
  // main thread, after BlockStopSignals.
  static StatusOr<std::unique_ptr<Service>> Create(const config::Config& config);

  // Tears the components down in the reverse of the order they were built;
  // each started one (job workers, sandboxes, warm pool) stops itself.
  ~Service();

  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Serves HTTP until SIGINT or SIGTERM (or until serving fails), then
  // shuts down gracefully: the listener closes at once, running jobs get
  // server.shutdown_grace_s seconds to finish and are re-queued after it
  // (they stay durable for the next start), then the job workers, the
  // stateful sandboxes and the warm pool stop. Ignores SIGPIPE. Returns OK
  // after a signal, or the error that ended serving. Blocks the calling
  // thread; call once, from the thread that called Create.
  Status Run();

  // The bound HTTP port (server.listen; port 0 picks a free one).
  int port() const;

 private:
  explicit Service(std::unique_ptr<Components> components);

  // Closes the listener, drains the running jobs (up to
  // server.shutdown_grace_s), then removes this node from the node
  // registry. Called from Run's signal-watching thread.
  void Shutdown();

  std::unique_ptr<Components> c_;
};

}  // namespace coderunner::service

#endif  // CODERUNNER_SERVICE_SERVICE_H_
