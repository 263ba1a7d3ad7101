#include "mcp_session.h"

#include <utility>
#include <vector>

#include "coderunner/common/ids.h"
#include "mcp_protocol.h"

namespace coderunner::api::mcp {

void CancelToken::OnCancel(std::function<void()> stop) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cancelled_) {
    stop_ = std::move(stop);
    return;
  }
  lock.unlock();
  stop();
}

void CancelToken::Cancel() {
  std::function<void()> stop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    stop = std::move(stop_);
  }
  if (stop) stop();
}

bool CancelToken::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

McpSession::McpSession(std::string id, std::string tenant, std::string protocol_version)
    : id_(std::move(id)),
      tenant_(std::move(tenant)),
      protocol_version_(std::move(protocol_version)) {}

void McpSession::SetLogLevel(int rank) {
  std::lock_guard<std::mutex> lock(mu_);
  log_rank_ = rank;
}

bool McpSession::Logs(int rank) const {
  std::lock_guard<std::mutex> lock(mu_);
  return rank >= log_rank_;
}

std::shared_ptr<CancelToken> McpSession::Track(const nlohmann::json& request_id) {
  auto token = std::make_shared<CancelToken>();
  bool closed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed = closed_;
    if (!closed) in_flight_[RequestKey(request_id)] = token;
  }
  if (closed) token->Cancel();
  return token;
}

void McpSession::Untrack(const nlohmann::json& request_id) {
  std::lock_guard<std::mutex> lock(mu_);
  in_flight_.erase(RequestKey(request_id));
}

void McpSession::Cancel(const nlohmann::json& request_id) {
  std::shared_ptr<CancelToken> token;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = in_flight_.find(RequestKey(request_id));
    if (it == in_flight_.end()) return;
    token = it->second;
  }
  token->Cancel();
}

bool McpSession::OpenStream() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_ || streams_ >= kMaxStreamsPerSession) return false;
  ++streams_;
  return true;
}

void McpSession::CloseStream() {
  std::lock_guard<std::mutex> lock(mu_);
  --streams_;
}

void McpSession::Close() {
  std::vector<std::shared_ptr<CancelToken>> tokens;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    closed_ = true;
    for (auto& [key, token] : in_flight_) tokens.push_back(token);
    in_flight_.clear();
  }
  closed_cv_.notify_all();
  for (auto& token : tokens) token->Cancel();
}

bool McpSession::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

bool McpSession::WaitClosed(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return closed_cv_.wait_for(lock, timeout, [this] { return closed_; });
}

bool McpSession::Quiet() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_flight_.empty();
}

void McpSession::Touch(std::chrono::steady_clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  last_used_ = now;
}

std::chrono::steady_clock::time_point McpSession::last_used() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_used_;
}

McpSessions::McpSessions(int max_per_tenant, std::chrono::seconds idle, Clock now)
    : max_per_tenant_(max_per_tenant),
      idle_(idle),
      now_(now ? std::move(now) : Clock([] { return std::chrono::steady_clock::now(); })) {}

StatusOr<std::shared_ptr<McpSession>> McpSessions::Open(const std::string& tenant,
                                                        const std::string& protocol_version) {
  auto now = now_();
  std::lock_guard<std::mutex> lock(mu_);
  EndIdleLocked(now);
  int held = 0;
  for (const auto& [id, s] : sessions_) held += s->tenant() == tenant ? 1 : 0;
  if (held >= max_per_tenant_ && !EndLeastRecentQuietLocked(tenant)) {
    return ResourceExhaustedError(
        "tenant holds " + std::to_string(held) +
            " MCP sessions, the most mcp.max_sessions_per_tenant allows, each with a call or a "
            "stream open: end one (DELETE /mcp)",
        kReasonSessionsExhausted);
  }
  auto session = std::make_shared<McpSession>(NewId("mcp"), tenant, protocol_version);
  session->Touch(now);
  sessions_[session->id()] = session;
  return session;
}

StatusOr<std::shared_ptr<McpSession>> McpSessions::Find(const std::string& id,
                                                        const std::string& tenant) {
  auto now = now_();
  std::lock_guard<std::mutex> lock(mu_);
  EndIdleLocked(now);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second->tenant() != tenant) {
    return NotFoundError("no MCP session with that Mcp-Session-Id: initialize a new one",
                         kReasonSessionNotFound);
  }
  it->second->Touch(now);
  return it->second;
}

Status McpSessions::Close(const std::string& id, const std::string& tenant) {
  std::shared_ptr<McpSession> session;
  {
    CR_ASSIGN_OR_RETURN(session, Find(id, tenant));
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.erase(id);
  }
  session->Close();
  return OkStatus();
}

void McpSessions::CloseAll() {
  std::map<std::string, std::shared_ptr<McpSession>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all.swap(sessions_);
  }
  for (auto& [id, s] : all) s->Close();
}

size_t McpSessions::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.size();
}

bool McpSessions::EndLeastRecentQuietLocked(const std::string& tenant) {
  auto oldest = sessions_.end();
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    const McpSession& s = *it->second;
    if (s.tenant() != tenant || !s.Quiet()) continue;
    if (oldest == sessions_.end() || s.last_used() < oldest->second->last_used()) oldest = it;
  }
  if (oldest == sessions_.end()) return false;
  oldest->second->Close();
  sessions_.erase(oldest);
  return true;
}

void McpSessions::EndIdleLocked(std::chrono::steady_clock::time_point now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (now - it->second->last_used() >= idle_) {
      it->second->Close();
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace coderunner::api::mcp
