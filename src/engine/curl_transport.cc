#include "coderunner/engine/curl_transport.h"

#include <curl/curl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "coderunner/common/curl_handle.h"
#include "coderunner/engine/transport.h"

namespace coderunner::engine {
namespace {

// One handle per thread: curl keeps the connection cache on the easy handle,
// so reusing it gives keep-alive to the engine without a shared, locked pool.
CURL* ThreadHandle() {
  thread_local CurlEasyPtr handle(curl_easy_init());
  curl_easy_reset(handle.get());
  return handle.get();
}

struct CallState {
  const ChunkSink* sink = nullptr;
  const std::function<void(long)>* on_response = nullptr;
  std::string* buffer = nullptr;
  CURL* curl = nullptr;
  bool response_signalled = false;
  bool aborted = false;
};

size_t WriteCallback(char* data, size_t size, size_t nmemb, void* user) {
  auto* state = static_cast<CallState*>(user);
  size_t n = size * nmemb;
  if (state->sink != nullptr) {
    if (!(*state->sink)(std::string_view(data, n))) {
      state->aborted = true;
      return 0;  // Makes curl fail the transfer with CURLE_WRITE_ERROR.
    }
    return n;
  }
  state->buffer->append(data, n);
  return n;
}

// An abortable request's socket is registered with its StreamAbort from
// creation to close, so Abort() can shut it down from another thread and
// never touches a closed (possibly reused) descriptor number.
int AbortableSockopt(void* user, curl_socket_t fd, curlsocktype) {
  return static_cast<StreamAbort*>(user)->Bind(fd) ? CURL_SOCKOPT_OK : CURL_SOCKOPT_ERROR;
}

int AbortableClose(void* user, curl_socket_t fd) {
  static_cast<StreamAbort*>(user)->Unbind(fd);
  return close(fd);
}

// Covers an Abort() that lands while the socket is still connecting (a
// shutdown then does nothing). curl calls this often while a transfer is
// busy and about once a second while it idles.
int AbortableProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<StreamAbort*>(user)->aborted() ? 1 : 0;
}

size_t HeaderCallback(char* data, size_t size, size_t nmemb, void* user) {
  auto* state = static_cast<CallState*>(user);
  size_t n = size * nmemb;
  // The blank line ends a header block. Informational (1xx) blocks are
  // followed by the real one, so only signal on a final status.
  if (n <= 2 && (n == 0 || data[0] == '\r' || data[0] == '\n')) {
    long code = 0;
    curl_easy_getinfo(state->curl, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 200 && !state->response_signalled) {
      state->response_signalled = true;
      if (state->on_response != nullptr && *state->on_response) (*state->on_response)(code);
    }
  }
  return n;
}

}  // namespace

CurlTransport::CurlTransport(std::string socket_path, std::chrono::milliseconds connect_timeout)
    : socket_path_(std::move(socket_path)), connect_timeout_(connect_timeout) {
  CurlGlobalInit();
}

StatusOr<HttpResponse> CurlTransport::Do(const HttpRequest& request) {
  return Perform(request, nullptr, nullptr, nullptr);
}

StatusOr<HttpResponse> CurlTransport::Stream(const HttpRequest& request, const ChunkSink& sink,
                                             const std::function<void(long)>& on_response,
                                             StreamAbort* abort) {
  return Perform(request, &sink, &on_response, abort);
}

StatusOr<HttpResponse> CurlTransport::Perform(const HttpRequest& request, const ChunkSink* sink,
                                              const std::function<void(long)>* on_response,
                                              StreamAbort* abort) {
  CURL* curl = ThreadHandle();
  if (curl == nullptr) return InternalError("curl_easy_init failed");

  // The host part is ignored by the engine; the socket decides where we go.
  std::string url = "http://engine/" + std::string(kApiVersion) + request.path;
  HttpResponse response;
  CallState state;
  state.sink = sink;
  state.on_response = on_response;
  state.buffer = &response.body;
  state.curl = curl;
  char errbuf[CURL_ERROR_SIZE] = {0};

  curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, socket_path_.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // Required for multi-threaded use.
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_timeout_.count()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &WriteCallback);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &HeaderCallback);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &state);
  if (abort != nullptr) {
    // A connection of its own, never returned to the thread's cache: the
    // close callback below points at this request's StreamAbort.
    curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, 1L);
    curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);
    curl_easy_setopt(curl, CURLOPT_SOCKOPTFUNCTION, &AbortableSockopt);
    curl_easy_setopt(curl, CURLOPT_SOCKOPTDATA, abort);
    curl_easy_setopt(curl, CURLOPT_CLOSESOCKETFUNCTION, &AbortableClose);
    curl_easy_setopt(curl, CURLOPT_CLOSESOCKETDATA, abort);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &AbortableProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, abort);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  }

  struct curl_slist* headers = nullptr;
  // curl sends "Expect: 100-continue" for large bodies; the engines do not
  // need the extra round trip.
  headers = curl_slist_append(headers, "Expect:");
  if (request.method == "POST") {
    headers = curl_slist_append(headers, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);

  CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);

  if (abort != nullptr && abort->aborted()) {
    // A shut-down socket reads as the engine closing the stream; the caller
    // must still learn that it was cut short.
    return UnavailableError(
        "engine " + request.method + " " + request.path + " via " + socket_path_ + ": aborted",
        "aborted");
  }
  if (rc != CURLE_OK) {
    std::string detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
    std::string what =
        "engine " + request.method + " " + request.path + " via " + socket_path_ + ": " + detail;
    if (state.aborted) return UnavailableError(what, "aborted");
    if (rc == CURLE_OPERATION_TIMEDOUT) return DeadlineExceededError(what, "engine_timeout");
    return UnavailableError(what, kReasonEngineUnavailable);
  }
  return response;
}

StatusOr<std::string> ResolveEngineSocket(const std::string& configured) {
  if (!configured.empty()) return configured;
  const char* docker_host = std::getenv("DOCKER_HOST");
  std::string tried;
  if (docker_host != nullptr && *docker_host != '\0') {
    std::string_view host(docker_host);
    constexpr std::string_view kUnix = "unix://";
    if (host.substr(0, kUnix.size()) == kUnix) return std::string(host.substr(kUnix.size()));
    tried = "DOCKER_HOST=" + std::string(host) + " (not a unix:// address), ";
  }
  for (const char* candidate : {"/run/podman/podman.sock", "/var/run/docker.sock"}) {
    struct stat st;
    if (stat(candidate, &st) == 0 && S_ISSOCK(st.st_mode)) return std::string(candidate);
    tried += std::string(candidate) + ", ";
  }
  return FailedPreconditionError(
      "no engine socket: set engine.socket or DOCKER_HOST=unix://PATH; tried " + tried +
          "none exists",
      kReasonEngineUnavailable);
}

}  // namespace coderunner::engine
