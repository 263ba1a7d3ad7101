// ExecClient: the /exec resource of the Engine API, a process started in a
// running container.
#ifndef CODERUNNER_ENGINE_EXECS_H_
#define CODERUNNER_ENGINE_EXECS_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/engine/transport.h"

namespace coderunner::engine {

// What to run. The process joins the container's namespaces and cgroup and
// keeps its capabilities (none), seccomp profile and no-new-privileges; it
// runs as `user` ("uid:gid", never empty: the engine would pick the image's
// user) in `working_dir`, with no terminal and no stdin.
struct ExecSpec {
  std::vector<std::string> command;
  std::string user;
  std::string working_dir;
  std::vector<std::string> env;  // "NAME=value".
};

// GET /exec/{id}/json, normalized across Docker and Podman.
struct ExecState {
  bool running = false;
  int exit_code = 0;  // Meaningful once !running.
};

// Thread-safe if the transport is. Does not own the transport, which must
// outlive it. Every call is bounded by `timeout` except Start, which is
// bounded by its own argument.
class ExecClient {
 public:
  ExecClient(Transport& transport, std::chrono::milliseconds timeout)
      : transport_(transport), timeout_(timeout) {}

  // POST /containers/{id}/exec. Returns the exec's id. A container that is
  // gone is NotFound; one not running is FailedPrecondition (409).
  StatusOr<std::string> Create(const std::string& container_id, const ExecSpec& spec);

  // POST /exec/{id}/start: runs the process, passing its multiplexed
  // stdout/stderr (StreamDemux's framing) to `sink` until its stdio closes.
  // Past `timeout`: DeadlineExceeded; ended through `abort` (optional, not
  // owned, must outlive the call) or by the sink: Unavailable "aborted".
  Status Start(const std::string& exec_id, const ChunkSink& sink, std::chrono::milliseconds timeout,
               StreamAbort* abort = nullptr);

  // GET /exec/{id}/json.
  StatusOr<ExecState> Inspect(const std::string& exec_id);

 private:
  Transport& transport_;
  std::chrono::milliseconds timeout_;
};

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_EXECS_H_
