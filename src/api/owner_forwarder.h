// OwnerForwarder: in fleet mode, a request for state that lives on one node
// (a sandbox, a job's artifacts) that reaches another node is proxied to
// the owner; when the owner is gone it is answered 410.
//
// Safety: the forwarder only ever connects to the advertised_url of a node
// in the registry (never to anything the request names), straight (never
// through a proxy from the environment), to the path its route matched
// (relay_path.h: rebuilt from the validated id and file path, sent as is,
// never from the request's raw path or query). It passes the caller's
// Authorization on (the owner authenticates it again: the hop header grants
// nothing), adds kForwardedByHeader, and never forwards a request that
// already carries it (one hop at most, no loops). Each relay is bounded in
// time and in relayed bytes.
#ifndef CODERUNNER_API_OWNER_FORWARDER_H_
#define CODERUNNER_API_OWNER_FORWARDER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/store/node_registry.h"
#include "coderunner/store/sandbox_owners.h"
#include "relay_path.h"
#include "route.h"

namespace coderunner::api {

// Set by a forwarding node on the request it relays: its node id.
inline constexpr const char* kForwardedByHeader = "X-Coderunner-Forwarded-By";
// On every forwarded or 410 answer: the node that served it (the owner, or
// this node when the owner is gone).
inline constexpr const char* kNodeHeader = "X-Coderunner-Node";

// 410: the node holding the sandbox is gone, and the sandbox with it.
inline constexpr const char* kReasonStateLost = "state_lost";
// 410: the node holding the job's artifacts is gone, and the files with it.
inline constexpr const char* kReasonArtifactsGone = "artifacts_gone";
// The relay to a registered, alive owner failed midway: 503 (the
// connection broke), 504 (timed out) or 500 (an answer over the bound).
inline constexpr const char* kReasonForwardFailed = "forward_failed";
// CurlRelay could not connect to the owner at all (Unavailable): the
// forwarder answers 410 as for a dead owner; never sent to a client.
inline constexpr const char* kReasonOwnerUnreachable = "owner_unreachable";

// What to do with a request for state held by `owner`.
enum class ForwardAction {
  kServeHere,  // Answer locally (held here, nobody recorded, or already forwarded).
  kForward,    // Proxy to the owner's advertised URL.
  kGone,       // The owner is not alive / not registered / has no URL: 410.
};

struct ForwardDecision {
  ForwardAction action = ForwardAction::kServeHere;
  std::string owner_url;  // kForward: the registered node's advertised_url.
};

// The decision table. `self`: this node's id; `owner`: the recorded owner
// ("" none); `held_here`: this node has the state; `forwarded`: the request
// carries kForwardedByHeader; `nodes`: the registry; alive = heartbeat
// younger than kNodeAliveHeartbeats * kNodeHeartbeatPeriodMs at `now_ms`.
// Pure; thread-safe.
ForwardDecision DecideForward(const std::string& self, const std::string& owner, bool held_here,
                              bool forwarded, const std::vector<store::NodeInfo>& nodes,
                              int64_t now_ms);

// One part of a multipart/form-data body, as httplib parsed it.
struct RelayPart {
  std::string name;
  std::string filename;
  std::string content_type;
  std::string content;
};

// One request to relay to an owner.
struct RelayRequest {
  std::string method;  // "GET", "HEAD", "POST", "DELETE".
  std::string url;     // The owner's advertised_url + a path from relay_path.h.
  std::string body;
  std::string authorization;  // The caller's Authorization header ("" none).
  std::string content_type;   // The caller's Content-Type ("" none).
  std::string forwarded_by;   // This node's id (kForwardedByHeader).
  // More of the caller's headers, (name, value): those its route names.
  std::vector<std::pair<std::string, std::string>> headers;
  // A multipart/form-data body (httplib parsed it, and kept no raw body):
  // sent as these parts under a boundary of libcurl's instead of `body`
  // and `content_type`.
  std::vector<RelayPart> parts;
  int64_t connect_timeout_ms = 2000;
  int64_t timeout_ms = 60000;  // Whole exchange, ms.
  // CurlStreamRelay: until the first piece of the body (or the whole
  // answer) is in, ms; 0 = only timeout_ms.
  int64_t first_piece_timeout_ms = 0;
  size_t max_body_bytes = 0;  // Bound on the relayed answer's body, bytes.
};

// The owner's answer headers relayed to the caller besides Content-Type:
// every header that keeps an answer from running as a page (those of every
// answer and those of a download, response_headers.h), a download's name, a
// 429's or 503's wait, a 401's challenge.
inline constexpr const char* kRelayedHeaders[] = {
    "Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options",
    "Referrer-Policy",         "Content-Disposition",    "Retry-After",
    "WWW-Authenticate"};

// What the owner answered.
struct RelayResponse {
  int status = 0;
  std::string content_type;
  // Those of kRelayedHeaders the owner sent, in the order it sent them.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// Sends `req` with libcurl (no redirects followed, http/https only, no
// proxy whatever the environment says, the URL's path sent as is: no dot
// segment removed; a HEAD reads no body) and reads the whole answer. Could
// not resolve or connect: Unavailable kReasonOwnerUnreachable (the owner is
// gone); timed out: DeadlineExceeded, a body over max_body_bytes: Internal,
// another failure: Unavailable, all kReasonForwardFailed. Blocks for up to
// req.timeout_ms. Thread-safe.
using RelayFn = std::function<StatusOr<RelayResponse>(const RelayRequest&)>;
StatusOr<RelayResponse> CurlRelay(const RelayRequest& req);

// The same exchange, answered as soon as the owner's status and headers
// are in (owner_stream_relay.cc): an answer that was already whole then is
// a plain Answer; any other streams on, as a chunked Answer under the
// owner's status whose provider relays each piece of the owner's body as
// it arrives (an E2B process's events, a download), holding at most one
// piece, for as long as the caller reads it (it is asked every
// kStreamCallerCheckMs) and within req.timeout_ms; the first piece within
// req.first_piece_timeout_ms, or DeadlineExceeded kReasonForwardFailed. req.max_body_bytes is
// not used: what the owner streams, it bounds. Errors before the headers
// as CurlRelay's; a failure after them ends the stream without its
// terminating chunk, so that the caller sees it cut. Thread-safe.
inline constexpr int64_t kStreamCallerCheckMs = 1000;
using StreamRelayFn = std::function<StatusOr<Answer>(RelayRequest req)>;
StatusOr<Answer> CurlStreamRelay(RelayRequest req);

struct ForwarderOptions {
  std::string self;                 // This node's id (config `instance`).
  int64_t timeout_ms = 60000;       // RelayRequest::timeout_ms.
  size_t max_body_bytes = 1 << 20;  // RelayRequest::max_body_bytes.
  // RelayRequest::timeout_ms of a streamed relay (ForSandboxStream): a
  // process's stream lasts as long as the process, up to its sandbox's
  // life. Its first piece comes within timeout_ms.
  int64_t stream_timeout_ms = 60000;
};

// Thread-safe; `nodes` and `owners` (not null) must outlive it.
class OwnerForwarder {
 public:
  OwnerForwarder(store::NodeRegistry* nodes, store::SandboxOwners* owners, ForwarderOptions options,
                 std::function<int64_t()> now_ms = nullptr, RelayFn relay = CurlRelay,
                 StreamRelayFn stream_relay = CurlStreamRelay);

  // For a request on sandbox `target.id` of `tenant`, as its route matched
  // it: nullopt to serve it here (held here, no owner recorded, or already
  // forwarded); the owner's answer to `req`'s method, body, Authorization
  // and Content-Type at SandboxRelayPath(target); or 410 kReasonStateLost
  // when the owner is gone. A target SandboxRelayPath refuses is answered
  // with its error, and nothing is relayed. Store failures as the store's;
  // a relay that failed midway as CurlRelay's.
  StatusOr<std::optional<Answer>> ForSandbox(const std::string& tenant, const SandboxTarget& target,
                                             bool held_here, const httplib::Request& req);

  // The same for artifact `file` of job `job_id` (ArtifactRelayPath):
  // `owner` is the job record's owner node; 410 kReasonArtifactsGone when
  // it is gone.
  StatusOr<std::optional<Answer>> ForArtifact(const std::string& owner, const std::string& job_id,
                                              const std::string& file, const httplib::Request& req);

  // A request on sandbox `id` that its route relays itself (E2B's surface,
  // e2b_relay.h): at `path` on the owner, with the caller's headers named
  // in `headers` besides Authorization and Content-Type, and a multipart
  // body's parts, its answer streamed back (CurlStreamRelay) under
  // kNodeHeader. `tenant`: the caller's; "" for a caller that names no
  // tenant and proves its right to the sandbox with a token only its owner
  // checks (SandboxOwners::PlacementOf). nullopt to serve it here, as
  // ForSandbox; the owner gone: NotFound kReasonStateLost (the sandbox is
  // no more). A `path` in error is returned before anything is relayed.
  StatusOr<std::optional<Answer>> ForSandboxStream(const std::string& tenant, const std::string& id,
                                                   bool held_here,
                                                   const StatusOr<std::string>& path,
                                                   std::span<const char* const> headers,
                                                   const httplib::Request& req);

  // Records / forgets that this node holds sandbox `id` (SandboxOwners).
  Status PlaceHere(const std::string& tenant, const std::string& id);
  Status Forget(const std::string& id);

 private:
  // The live owner's URL for a request on state held by `owner`: "" to
  // serve it here (held here, already forwarded, none or this node),
  // nullopt when the owner is gone.
  StatusOr<std::optional<std::string>> OwnerUrl(const std::string& owner, bool held_here,
                                                const httplib::Request& req);
  // `path`: the owner's path for the request (or why it has none).
  StatusOr<std::optional<Answer>> Route(const std::string& owner, bool held_here,
                                        const StatusOr<std::string>& path,
                                        const httplib::Request& req, const Status& gone);

  store::NodeRegistry* nodes_;
  store::SandboxOwners* owners_;
  const ForwarderOptions options_;
  std::function<int64_t()> now_ms_;
  RelayFn relay_;
  StreamRelayFn stream_relay_;
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_OWNER_FORWARDER_H_
