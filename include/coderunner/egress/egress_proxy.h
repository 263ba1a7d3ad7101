// EgressProxy: the only way out of a job with "network": "allowlist". The
// service listens on 127.0.0.1:kEgressProxyPort *inside* the job's network
// namespace (which has loopback only): the socket is the service's, made by
// a thread that entered the namespace and left, so nothing in the container
// runs it, holds it or can kill it. Each connection is one request: CONNECT
// (a tunnel, HTTPS) or plain HTTP in absolute form (proxy_request.h). The
// service checks the host against the policy, resolves it on the host,
// refuses any address that is not public unless the policy lists it,
// connects, relays within the policy's bounds, and logs the request.
// A refused request gets an HTTP error at once whose reason says why.
#ifndef CODERUNNER_EGRESS_EGRESS_PROXY_H_
#define CODERUNNER_EGRESS_EGRESS_PROXY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/egress/egress_policy.h"

namespace coderunner::egress {

// Where a job's proxy listens, inside its network namespace
// (HTTP_PROXY=http://127.0.0.1:3128): squid's port, the one clients expect.
inline constexpr int kEgressProxyPort = 3128;

// Outcomes of one request.
inline constexpr char kOutcomeOk[] = "ok";                           // Relayed to its end.
inline constexpr char kOutcomeRefusedHost[] = "refused_host";        // Not in the allowlist.
inline constexpr char kOutcomeRefusedAddress[] = "refused_address";  // Resolved to a private one.
inline constexpr char kOutcomeResolveFailed[] = "resolve_failed";
inline constexpr char kOutcomeConnectFailed[] = "connect_failed";
inline constexpr char kOutcomeByteLimit[] = "byte_limit";      // The job's bytes ran out.
inline constexpr char kOutcomeIdleTimeout[] = "idle_timeout";  // Silent both ways too long.
inline constexpr char kOutcomeTooMany[] = "too_many_connections";
inline constexpr char kOutcomeBadRequest[] = "bad_request";
inline constexpr char kOutcomeJobEnded[] = "job_ended";  // Still open when the job ended.

// One request through the proxy.
struct EgressRecord {
  std::string method;  // "CONNECT", "GET", ...; "" when the head was unreadable.
  std::string host;
  int port = 0;
  std::string address;    // The address connected to; "" if none.
  int64_t bytes_out = 0;  // From the job (after the head).
  int64_t bytes_in = 0;   // To the job.
  std::string outcome;    // kOutcome*.
  std::string detail;     // Why, for a refusal or failure.
  int64_t duration_ms = 0;
};

struct EgressLog {
  std::vector<EgressRecord> requests;  // In the order they ended.
  int64_t dropped = 0;                 // Requests past max_log_entries.
  int64_t bytes = 0;                   // Relayed both ways, all requests.
};

class EgressProxy {
 public:
  // Listens on 127.0.0.1:`port` (0: any free port, for tests) in the
  // network namespace at `netns_path` ("/proc/<pid>/ns/net"; "": the
  // service's own). Internal "egress_unavailable" if it cannot.
  static StatusOr<std::unique_ptr<EgressProxy>> Open(const std::string& netns_path, int port,
                                                     EgressPolicy policy);
  ~EgressProxy();
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  int port() const { return port_; }

  // The requests that ended since the last Drain (a sandbox's, per call),
  // taken out of the log; `bytes` is the total so far. Thread-safe.
  EgressLog Drain();

  // Stops listening, ends every open connection (kOutcomeJobEnded) and
  // returns the log. Once; thread-compatible.
  EgressLog Finish();

  struct Shared;  // What the connections share (egress_proxy.cc).

 private:
  EgressProxy(int listener, int port, int wake, EgressPolicy policy);
  void AcceptLoop();

  int listener_;
  int port_;
  int wake_;  // An eventfd: readable once Finish began.
  std::shared_ptr<Shared> shared_;
  std::thread acceptor_;
  bool finished_ = false;
};

}  // namespace coderunner::egress

#endif  // CODERUNNER_EGRESS_EGRESS_PROXY_H_
