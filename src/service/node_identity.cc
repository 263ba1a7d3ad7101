#include "node_identity.h"

#include <unistd.h>

#include <thread>

#ifndef CODERUNNER_VERSION
#define CODERUNNER_VERSION "unknown"
#endif

namespace coderunner::service {

std::string_view CoderunnerVersion() { return CODERUNNER_VERSION; }

std::string EngineKindName(engine::EngineKind kind) {
  return kind == engine::EngineKind::kPodman ? "podman" : "docker";
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

store::NodeInfo NodeIdentity(const config::Config& cfg, std::string_view hostname,
                             int64_t started_at_ms) {
  store::NodeInfo node;
  node.id = cfg.instance;
  node.advertised_url = config::AdvertiseUrl(cfg, hostname);
  if (cfg.code_runner.runtime == config::RunMode::kNative) node.engine = "native";
  node.runtime = cfg.sandbox.runtime;
  node.capacity = cfg.jobs.max_concurrent;
  if (node.capacity == 0) {
    const unsigned cores = std::thread::hardware_concurrency();
    node.capacity = cores == 0 ? 2 : static_cast<int>(cores);
  }
  node.version = std::string(CoderunnerVersion());
  node.started_at_ms = started_at_ms;
  return node;
}

}  // namespace coderunner::service
