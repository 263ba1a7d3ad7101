#include "owner_forwarder.h"

#include <chrono>
#include <utility>

#include "http_status.h"

namespace coderunner::api {
namespace {

int64_t WallNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool Unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~';
}

// `s` percent-encoded, keeping unreserved bytes (and '/' when `keep_slash`).
std::string Escape(const std::string& s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (Unreserved(c) || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

// The request's path and query, re-encoded (httplib hands them decoded).
std::string PathAndQuery(const httplib::Request& req) {
  std::string out = Escape(req.path, /*keep_slash=*/true);
  char sep = '?';
  for (const auto& [name, value] : req.params) {
    out += sep + Escape(name, false) + "=" + Escape(value, false);
    sep = '&';
  }
  return out;
}

// The advertised URL without a trailing '/', so that a path can follow.
std::string TrimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
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
                               RelayFn relay)
    : nodes_(nodes),
      owners_(owners),
      options_(std::move(options)),
      now_ms_(now_ms ? std::move(now_ms) : WallNowMs),
      relay_(std::move(relay)) {}

StatusOr<std::optional<Answer>> OwnerForwarder::Route(const std::string& owner, bool held_here,
                                                      const httplib::Request& req,
                                                      const Status& gone) {
  const bool forwarded = req.has_header(kForwardedByHeader);
  if (held_here || forwarded || owner.empty() || owner == options_.self) {
    return std::optional<Answer>();  // Skips the registry read.
  }
  CR_ASSIGN_OR_RETURN(std::vector<store::NodeInfo> nodes, nodes_->List());
  ForwardDecision d = DecideForward(options_.self, owner, held_here, forwarded, nodes, now_ms_());
  if (d.action == ForwardAction::kServeHere) return std::optional<Answer>();
  Answer gone_answer = Answer::Json(410, ErrorJson(gone));
  gone_answer.WithHeader(kNodeHeader, options_.self);
  if (d.action == ForwardAction::kGone) return std::optional<Answer>(std::move(gone_answer));

  RelayRequest relay{req.method,
                     TrimSlash(d.owner_url) + PathAndQuery(req),
                     req.body,
                     req.get_header_value("Authorization"),
                     req.get_header_value("Content-Type"),
                     options_.self};
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
                                                           const std::string& id, bool held_here,
                                                           const httplib::Request& req) {
  if (held_here || req.has_header(kForwardedByHeader)) return std::optional<Answer>();
  CR_ASSIGN_OR_RETURN(std::optional<store::SandboxPlacement> placed,
                      owners_->SandboxOwner(id, tenant));
  if (!placed) return std::optional<Answer>();
  return Route(placed->node, held_here, req,
               FailedPreconditionError("sandbox " + id + " lived on node " + placed->node +
                                           ", which is gone: its state is lost",
                                       kReasonStateLost));
}

StatusOr<std::optional<Answer>> OwnerForwarder::ForArtifact(const std::string& owner,
                                                            const std::string& job_id,
                                                            const httplib::Request& req) {
  return Route(owner, /*held_here=*/false, req,
               FailedPreconditionError(
                   "the artifacts of job " + job_id + " were on node " + owner + ", which is gone",
                   kReasonArtifactsGone));
}

Status OwnerForwarder::PlaceHere(const std::string& tenant, const std::string& id) {
  return owners_->PlaceSandbox({id, tenant, options_.self, now_ms_()});
}

Status OwnerForwarder::Forget(const std::string& id) { return owners_->ForgetSandbox(id); }

}  // namespace coderunner::api
