// An MCP session (docs/mcp.md): made by initialize, named by the
// Mcp-Session-Id header, owned by one tenant. It holds the client's
// logging level, the calls in flight (so that notifications/cancelled can
// stop one), and its GET streams. McpSessions bounds how many a tenant
// holds and ends those left idle. Private to src/api.
#ifndef CODERUNNER_API_MCP_MCP_SESSION_H_
#define CODERUNNER_API_MCP_MCP_SESSION_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "coderunner/common/status.h"

namespace coderunner::api::mcp {

// Reason of the refusal of an initialize beyond a tenant's sessions (429).
inline constexpr char kReasonSessionsExhausted[] = "mcp_sessions_exhausted";
// Reason of a session id that is unknown, ended, or another tenant's (404).
inline constexpr char kReasonSessionNotFound[] = "mcp_session_not_found";
// GET streams one session may hold at once (the spec allows several).
inline constexpr int kMaxStreamsPerSession = 2;

// Whether a call in flight was cancelled, and what cancelling it does.
// Thread-safe.
class CancelToken {
 public:
  // Runs `stop` when Cancel is called, or at once if it already was.
  void OnCancel(std::function<void()> stop);
  void Cancel();
  bool cancelled() const;

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::function<void()> stop_;
};

// Thread-safe.
class McpSession {
 public:
  McpSession(std::string id, std::string tenant, std::string protocol_version);

  const std::string& id() const { return id_; }
  const std::string& tenant() const { return tenant_; }
  const std::string& protocol_version() const { return protocol_version_; }

  // logging/setLevel: messages below `rank` (LogLevelRank) are not sent.
  void SetLogLevel(int rank);
  bool Logs(int rank) const;

  // The token of request `request_id` while it runs (Untrack when done).
  std::shared_ptr<CancelToken> Track(const nlohmann::json& request_id);
  void Untrack(const nlohmann::json& request_id);
  // notifications/cancelled: cancels the request, if it is still running.
  void Cancel(const nlohmann::json& request_id);

  // A GET stream may open: false at kMaxStreamsPerSession.
  bool OpenStream();
  void CloseStream();

  // Ends the session: every call in flight is cancelled, waiters wake.
  void Close();
  bool closed() const;
  // Waits up to `timeout` for Close; true once closed.
  bool WaitClosed(std::chrono::milliseconds timeout) const;

  // No call in flight: nothing is lost if it ends (a GET stream only
  // waits, and ends with it).
  bool Quiet() const;

  void Touch(std::chrono::steady_clock::time_point now);
  std::chrono::steady_clock::time_point last_used() const;

 private:
  const std::string id_;
  const std::string tenant_;
  const std::string protocol_version_;
  mutable std::mutex mu_;
  mutable std::condition_variable closed_cv_;
  int log_rank_ = 1;  // "info".
  std::map<std::string, std::shared_ptr<CancelToken>> in_flight_;
  int streams_ = 0;
  bool closed_ = false;
  std::chrono::steady_clock::time_point last_used_;
};

// The sessions of this node. Thread-safe.
class McpSessions {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // At most `max_per_tenant` open sessions per tenant; one unused for
  // `idle` ends. `now` is the clock (steady_clock::now by default).
  McpSessions(int max_per_tenant, std::chrono::seconds idle, Clock now = nullptr);

  // A new session for `tenant` speaking `protocol_version`. At the
  // tenant's bound, its least recently used quiet session ends to make
  // room (clients often leave without DELETE, their GET stream still
  // open); ResourceExhausted kReasonSessionsExhausted when every one has a
  // call in flight.
  StatusOr<std::shared_ptr<McpSession>> Open(const std::string& tenant,
                                             const std::string& protocol_version);
  // The session `id` of `tenant`, marked used. NotFound
  // kReasonSessionNotFound when unknown, idle too long, or another
  // tenant's (which is not told apart).
  StatusOr<std::shared_ptr<McpSession>> Find(const std::string& id, const std::string& tenant);
  // Ends session `id` of `tenant` (Find's errors).
  Status Close(const std::string& id, const std::string& tenant);
  // Ends every session (shutdown).
  void CloseAll();
  size_t size() const;

 private:
  // Ends the sessions idle past `idle_`; mu_ held.
  void EndIdleLocked(std::chrono::steady_clock::time_point now);
  // Ends `tenant`'s least recently used quiet session; false when none is
  // quiet. mu_ held.
  bool EndLeastRecentQuietLocked(const std::string& tenant);

  const int max_per_tenant_;
  const std::chrono::seconds idle_;
  const Clock now_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<McpSession>> sessions_;
};

}  // namespace coderunner::api::mcp

#endif  // CODERUNNER_API_MCP_MCP_SESSION_H_
