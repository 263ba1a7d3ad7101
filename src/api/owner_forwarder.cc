#include "owner_forwarder.h"

#include <chrono>
#include <utility>

#include "coderunner/common/wall_clock.h"
#include "http_status.h"

namespace coderunner::api {
namespace {

// The advertised URL without a trailing '/', so that a path can follow.
std::string TrimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// `req` to `url`, with its body, its Authorization and Content-Type, from
// node `self`.
RelayRequest BaseRelay(const httplib::Request& req, std::string url, const std::string& self) {
  RelayRequest relay;
  relay.method = req.method;
  relay.url = std::move(url);
  relay.body = req.body;
  relay.authorization = req.get_header_value("Authorization");
  relay.content_type = req.get_header_value("Content-Type");
  relay.forwarded_by = self;
  return relay;
}

}  // namespace

ForwardDecision DecideForward(const std::string& self, const std::string& owner, bool held_here,
                              bool forwarded, const std::vector<store::NodeInfo>& nodes,
                              int64_t now_ms) {
  if (held_here || forwarded || owner.empty() || owner == self) return {};
  constexpr int64_t kAliveMs = store::kNodeAliveHeartbeats * store::kNodeHeartbeatPeriodMs;
  for (const store::NodeInfo& n : nodes) {
    if (n.id != owner) continue;
    const bool alive = now_ms - n.last_heartbeat_ms < kAliveMs;
    if (!alive || n.advertised_url.empty()) break;
    return {ForwardAction::kForward, n.advertised_url};
  }
  return {ForwardAction::kGone, ""};
}

OwnerForwarder::OwnerForwarder(store::NodeRegistry* nodes, store::SandboxOwners* owners,
                               ForwarderOptions options, std::function<int64_t()> now_ms,
                               RelayFn relay, StreamRelayFn stream_relay)
    : nodes_(nodes),
      owners_(owners),
      options_(std::move(options)),
      now_ms_(now_ms ? std::move(now_ms) : WallClockMs),
      relay_(std::move(relay)),
      stream_relay_(std::move(stream_relay)) {}

StatusOr<std::optional<std::string>> OwnerForwarder::OwnerUrl(const std::string& owner,
                                                              bool held_here,
                                                              const httplib::Request& req) {
  const bool forwarded = req.has_header(kForwardedByHeader);
  if (held_here || forwarded || owner.empty() || owner == options_.self) {
    return std::optional<std::string>("");  // Skips the registry read.
  }
  CR_ASSIGN_OR_RETURN(std::vector<store::NodeInfo> nodes, nodes_->List());
  ForwardDecision d = DecideForward(options_.self, owner, held_here, forwarded, nodes, now_ms_());
  if (d.action == ForwardAction::kServeHere) return std::optional<std::string>("");
  if (d.action == ForwardAction::kGone) return std::optional<std::string>();
  return std::optional<std::string>(TrimSlash(d.owner_url));
}

StatusOr<std::optional<Answer>> OwnerForwarder::Route(const std::string& owner, bool held_here,
                                                      const StatusOr<std::string>& path,
                                                      const httplib::Request& req,
                                                      const Status& gone) {
  if (held_here || req.has_header(kForwardedByHeader) || owner.empty() || owner == options_.self) {
    return std::optional<Answer>();
  }
  // Refused as the owner would refuse it; nothing leaves this node.
  if (!path.ok()) return path.status();
  CR_ASSIGN_OR_RETURN(std::optional<std::string> url, OwnerUrl(owner, held_here, req));
  if (url && url->empty()) return std::optional<Answer>();
  Answer gone_answer = Answer::Json(410, ErrorJson(gone));
  gone_answer.WithHeader(kNodeHeader, options_.self);
  if (!url) return std::optional<Answer>(std::move(gone_answer));

  RelayRequest relay = BaseRelay(req, *url + *path, options_.self);
  relay.timeout_ms = options_.timeout_ms;
  relay.max_body_bytes = options_.max_body_bytes;
  StatusOr<RelayResponse> got = relay_(relay);
  // Could not connect: the owner died since its last heartbeat.
  if (!got.ok() && got.status().reason() == kReasonOwnerUnreachable) {
    return std::optional<Answer>(std::move(gone_answer));
  }
  if (!got.ok()) return got.status();
  Answer a =
      Answer::Text(got->status, std::move(got->body),
                   got->content_type.empty() ? "application/octet-stream" : got->content_type);
  for (auto& [name, value] : got->headers) a.WithHeader(name, std::move(value));
  a.WithHeader(kNodeHeader, owner);
  return std::optional<Answer>(std::move(a));
}

StatusOr<std::optional<Answer>> OwnerForwarder::ForSandbox(const std::string& tenant,
                                                           const SandboxTarget& target,
                                                           bool held_here,
                                                           const httplib::Request& req) {
  if (held_here || req.has_header(kForwardedByHeader)) return std::optional<Answer>();
  const std::string& id = target.id;
  CR_ASSIGN_OR_RETURN(std::optional<store::SandboxPlacement> placed,
                      owners_->SandboxOwner(id, tenant));
  if (!placed) return std::optional<Answer>();
  return Route(placed->node, held_here, SandboxRelayPath(target), req,
               FailedPreconditionError("sandbox " + id + " lived on node " + placed->node +
                                           ", which is gone: its state is lost",
                                       kReasonStateLost));
}

StatusOr<std::optional<Answer>> OwnerForwarder::ForArtifact(const std::string& owner,
                                                            const std::string& job_id,
                                                            const std::string& file,
                                                            const httplib::Request& req) {
  return Route(owner, /*held_here=*/false, ArtifactRelayPath(job_id, file), req,
               FailedPreconditionError(
                   "the artifacts of job " + job_id + " were on node " + owner + ", which is gone",
                   kReasonArtifactsGone));
}

StatusOr<std::optional<Answer>> OwnerForwarder::ForSandboxStream(
    const std::string& tenant, const std::string& id, bool held_here,
    const StatusOr<std::string>& path, std::span<const char* const> headers,
    const httplib::Request& req) {
  if (held_here || req.has_header(kForwardedByHeader)) return std::optional<Answer>();
  std::optional<store::SandboxPlacement> placed;
  if (tenant.empty()) {
    CR_ASSIGN_OR_RETURN(placed, owners_->PlacementOf(id));
  } else {
    CR_ASSIGN_OR_RETURN(placed, owners_->SandboxOwner(id, tenant));
  }
  if (!placed || placed->node == options_.self) return std::optional<Answer>();
  if (!path.ok()) return path.status();
  const Status gone = NotFoundError(
      "sandbox " + id + " lived on node " + placed->node + ", which is gone: its state is lost",
      kReasonStateLost);
  CR_ASSIGN_OR_RETURN(std::optional<std::string> url, OwnerUrl(placed->node, held_here, req));
  if (!url) return gone;
  RelayRequest relay = BaseRelay(req, *url + *path, options_.self);
  for (const char* name : headers) {
    if (req.has_header(name)) relay.headers.emplace_back(name, req.get_header_value(name));
  }
  for (const auto& [name, part] : req.files) {
    relay.parts.push_back({part.name, part.filename, part.content_type, part.content});
  }
  relay.timeout_ms = options_.stream_timeout_ms;
  relay.first_piece_timeout_ms = options_.timeout_ms;
  StatusOr<Answer> got = stream_relay_(std::move(relay));
  if (!got.ok() && got.status().reason() == kReasonOwnerUnreachable) return gone;
  if (!got.ok()) return got.status();
  got->WithHeader(kNodeHeader, placed->node);
  return std::optional<Answer>(std::move(*got));
}

Status OwnerForwarder::PlaceHere(const std::string& tenant, const std::string& id) {
  return owners_->PlaceSandbox({id, tenant, options_.self, now_ms_()});
}

Status OwnerForwarder::Forget(const std::string& id) { return owners_->ForgetSandbox(id); }

}  // namespace coderunner::api
