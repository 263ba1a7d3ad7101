// Transport: how engine resource clients reach the Engine REST API.
//
// A Transport sends one HTTP request to the engine and returns the status and
// body, or streams the body to a callback. It knows nothing about containers;
// the per-resource clients (ContainerClient, ImageClient, SystemClient) build
// paths and interpret answers. An HTTP error status from the engine is *data*
// (returned in HttpResponse), not an error Status: only transport failures
// (cannot connect, timeout, protocol error) are errors, reported as
// Unavailable or DeadlineExceeded with curl's message.
//
// Implementations must be safe to call from many threads at once.
#ifndef CODERUNNER_ENGINE_TRANSPORT_H_
#define CODERUNNER_ENGINE_TRANSPORT_H_

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/engine/stream_abort.h"

namespace coderunner::engine {

// Unavailable: the engine socket cannot be reached, or the connection broke
// (503 at the HTTP edge; callers may retry).
inline constexpr char kReasonEngineUnavailable[] = "engine_unavailable";

struct HttpRequest {
  std::string method = "GET";  // GET, POST, DELETE.
  // Path below the pinned API version, starting with '/', including any query
  // string, e.g. "/containers/abc/json". The transport adds "/v1.41".
  std::string path;
  std::string body;  // Sent as application/json when non-empty (or for POST).
  // Whole-request timeout. Zero means "no overall timeout" and is only
  // allowed for streaming requests, whose lifetime the caller bounds.
  std::chrono::milliseconds timeout{30000};
};

struct HttpResponse {
  long status = 0;   // HTTP status code from the engine.
  std::string body;  // Empty for streamed requests (the sink got the bytes).
};

// Receives streamed body bytes. Return false to abort the transfer (the
// request then fails with Unavailable reason "aborted").
using ChunkSink = std::function<bool(std::string_view chunk)>;

class Transport {
 public:
  virtual ~Transport() = default;

  // Sends `request` and buffers the whole response body.
  virtual StatusOr<HttpResponse> Do(const HttpRequest& request) = 0;

  // Sends `request` and passes body bytes to `sink` as they arrive.
  // `on_response` runs once, when the response status line and headers have
  // been received and before any body byte, with the status code; this is
  // how a caller learns that an attach stream is established. Returns when
  // the engine closes the stream, the sink aborts, the timeout expires, or
  // `abort` (optional, not owned, must outlive the call) is aborted from
  // another thread; the last fails with Unavailable reason "aborted". An
  // abortable request gets a connection of its own, closed when it ends.
  virtual StatusOr<HttpResponse> Stream(const HttpRequest& request, const ChunkSink& sink,
                                        const std::function<void(long status)>& on_response,
                                        StreamAbort* abort) = 0;
};

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_TRANSPORT_H_
