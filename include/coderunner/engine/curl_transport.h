// CurlTransport: Transport over a Unix socket with libcurl.
#ifndef CODERUNNER_ENGINE_CURL_TRANSPORT_H_
#define CODERUNNER_ENGINE_CURL_TRANSPORT_H_

#include <string>

#include "coderunner/engine/transport.h"

namespace coderunner::engine {

// The Engine API version every path is pinned to. Both Docker 20.10 and
// Podman 4.3's compat API serve it.
inline constexpr std::string_view kApiVersion = "v1.41";

// Talks to the engine at `socket_path` (CURLOPT_UNIX_SOCKET_PATH).
// Thread-safe: each calling thread keeps its own curl handle, so connections
// are reused per thread (keep-alive) without locking.
class CurlTransport : public Transport {
 public:
  // `connect_timeout` bounds connecting to the socket for every request.
  explicit CurlTransport(std::string socket_path, std::chrono::milliseconds connect_timeout =
                                                      std::chrono::milliseconds(2000));

  StatusOr<HttpResponse> Do(const HttpRequest& request) override;
  StatusOr<HttpResponse> Stream(const HttpRequest& request, const ChunkSink& sink,
                                const std::function<void(long)>& on_response,
                                StreamAbort* abort) override;

  const std::string& socket_path() const { return socket_path_; }

 private:
  StatusOr<HttpResponse> Perform(const HttpRequest& request, const ChunkSink* sink,
                                 const std::function<void(long)>* on_response, StreamAbort* abort);

  std::string socket_path_;
  std::chrono::milliseconds connect_timeout_;
};

// Resolves which engine socket to use: `configured` if non-empty, else
// DOCKER_HOST when it is "unix://PATH", else the first existing of
// /run/podman/podman.sock and /var/run/docker.sock. Fails with
// FailedPrecondition naming everything it tried.
StatusOr<std::string> ResolveEngineSocket(const std::string& configured);

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_CURL_TRANSPORT_H_
