// ContainerClient: the /containers resource of the Engine API.
#ifndef CODERUNNER_ENGINE_CONTAINERS_H_
#define CODERUNNER_ENGINE_CONTAINERS_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/engine/transport.h"

namespace coderunner::engine {

// What /containers/{id}/json tells us about a container, normalized across
// Docker and Podman.
struct ContainerState {
  std::string id;
  std::string image_id;  // Always "sha256:<hex>", whichever engine.
  std::string status;    // "created", "running", "exited", ...
  bool running = false;
  int exit_code = 0;
  bool oom_killed = false;  // Unreliable on Podman 4.3 (reports false).
  std::map<std::string, std::string> labels;
  nlohmann::json raw;  // The whole inspect body, for policy verification.
};

// One row of GET /containers/json.
struct ContainerSummary {
  std::string id;
  std::string state;  // "running", "exited", "created", ...
  std::map<std::string, std::string> labels;
};

// Thread-safe if the transport is (CurlTransport is). Does not own the
// transport, which must outlive it. Every call is bounded by `timeout` except
// Attach, which is bounded by its own argument.
class ContainerClient {
 public:
  ContainerClient(Transport& transport, std::chrono::milliseconds timeout)
      : transport_(transport), timeout_(timeout) {}

  // POST /containers/create. Returns the new container's id. A name clash is
  // AlreadyExists; a missing image is NotFound with the engine's message.
  StatusOr<std::string> Create(const nlohmann::json& spec, const std::string& name);

  // POST /containers/{id}/start. Already started (304) is OK.
  Status Start(const std::string& id);

  // POST /containers/{id}/attach?stream=1&stdout=1&stderr=1. Blocks while the
  // multiplexed stdout/stderr stream flows into `sink`, returning OK when the
  // engine closes it (the container's output ended). `on_attached` runs once
  // the stream is established, so the caller may Start the container from
  // another thread without losing early output. A call not finished within
  // `timeout` fails with DeadlineExceeded; one ended through `abort`
  // (optional, not owned, must outlive the call; see StreamAbort) fails with Unavailable reason
  // "aborted".
  Status Attach(const std::string& id, const ChunkSink& sink,
                const std::function<void()>& on_attached, std::chrono::milliseconds timeout,
                StreamAbort* abort = nullptr);

  // POST /containers/{id}/wait. Returns the exit code once not running.
  // `timeout` bounds the call.
  StatusOr<int> Wait(const std::string& id, std::chrono::milliseconds timeout);

  // GET /containers/{id}/json.
  StatusOr<ContainerState> Inspect(const std::string& id);

  // The OCI runtime the engine runs (or ran) container `id` under, e.g.
  // "runc" or "runsc": what the engine actually does, not what was asked.
  // Docker reports it as HostConfig.Runtime of GET /containers/{id}/json.
  // Podman's compat inspect always says "oci" there, so for Podman it is
  // OCIRuntime of GET /libpod/containers/{id}/json. NotFound if the container
  // is gone; Internal "engine_bad_response" if neither answer names one.
  StatusOr<std::string> OciRuntime(const std::string& id);

  // POST /containers/{id}/kill with `signal`. A container that is not
  // running (409) is OK: the goal, a dead container, holds.
  Status Kill(const std::string& id, const std::string& signal = "KILL");

  // DELETE /containers/{id}?force=1&v=1. A container already gone is OK.
  Status Remove(const std::string& id);

  // GET /containers/json?all=1 filtered by `labels` (all must match;
  // an empty value matches the key alone).
  StatusOr<std::vector<ContainerSummary>> List(const std::map<std::string, std::string>& labels);

 private:
  // Normalizes an inspect body; throws nlohmann::json::exception on bad types.
  static ContainerState StateFrom(const nlohmann::json& body);

  Transport& transport_;
  std::chrono::milliseconds timeout_;
};

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_CONTAINERS_H_
