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
#include "coderunner/egress/egress_log.h"
#include "coderunner/egress/egress_policy.h"

namespace coderunner::egress {

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
