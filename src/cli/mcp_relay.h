// McpRelay: the heart of `coderunner mcp`. It takes the MCP client's
// messages one line at a time, forwards each to the server's /mcp (with
// the session's Mcp-Session-Id and MCP-Protocol-Version once initialize
// has given them), and writes every message the server sends back to
// stdout as one line, under a lock, as it arrives. Diagnostics go to
// stderr; nothing but MCP messages goes to stdout.
//
// Requests run concurrently, each on a thread of its own, at most
// kMaxRequestsInFlight at once; notifications and responses go out at
// once on the caller's thread (the server answers them with 202), so a
// notifications/cancelled or a ping is not held up by a long tools/call.
// initialize alone is answered on the caller's thread, before the next
// line is read: every later message needs the session it starts.
// A cancelled request's stream is abandoned: the server sends it no
// response. Once the client has sent notifications/initialized, the
// session's own GET stream is relayed too (requests and notifications the
// server sends outside any call). When the server no longer knows the
// session (404), the relay starts a new one by replaying the client's
// initialize, and retries the message once.
#ifndef CODERUNNER_CLI_MCP_RELAY_H_
#define CODERUNNER_CLI_MCP_RELAY_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>

#include "mcp_http.h"
#include "mcp_messages.h"

namespace coderunner::cli {

// Requests forwarded at once; the next waits (and stdin is not read) until
// one finishes, so a flooding client cannot make unbounded threads.
inline constexpr size_t kMaxRequestsInFlight = 16;

class McpRelay {
 public:
  // `http` and `interrupted` (raised by a signal: abandon everything in
  // flight) are not owned and outlive the relay.
  McpRelay(const McpHttp* http, const std::atomic<bool>* interrupted);
  // Shutdown(0) unless it ran.
  ~McpRelay();
  McpRelay(const McpRelay&) = delete;
  McpRelay& operator=(const McpRelay&) = delete;

  // One line from the client, without its line ending. A line that is not
  // a message is answered at once (ParseClientLine); a request is
  // forwarded on a thread of its own, after waiting for a free one; an
  // initialize, a notification or a response is forwarded (and
  // initialize answered) before this returns.
  void HandleLine(std::string_view line);

  // A line longer than kMaxMcpMessageBytes was skipped: answers -32700.
  void HandleOverlongLine();

  // Waits up to `grace` for the requests in flight (less once
  // `interrupted` is raised), abandons the rest, ends the session (DELETE
  // /mcp, when there is one) and stops the session's stream. Nothing is
  // written to stdout after it returns. Idempotent.
  void Shutdown(std::chrono::milliseconds grace);

 private:
  struct Request {
    McpMessage message;
    std::atomic<bool> cancelled{false};
    bool done = false;  // Guarded by mu_.
    std::thread thread;
  };
  struct Session {
    std::string id;                // "" until initialize gave one.
    std::string protocol_version;  // "" until initialize negotiated one.
  };
  // One attempt at sending a message.
  struct Attempt {
    RelayOutcome outcome;       // Still to write (streamed messages already were).
    std::string session_id;     // The session it was sent with ("" for none).
    bool session_gone = false;  // 404 for a message sent with a session id.
    bool abandoned = false;     // Cancelled or stopping: write nothing more.
  };
  using Deliver = std::function<void(const nlohmann::json& message)>;

  void WriteLine(const std::string& line);
  void WriteOutcome(const RelayOutcome& outcome);
  bool Stopping() const;
  Session CurrentSession();
  void AdoptSession(const std::string& id);
  void AdoptProtocolVersion(const std::string& version);

  void StartRequest(McpMessage message);
  void ReapFinishedLocked();
  void MarkCancelled(const nlohmann::json& id);
  void Send(const McpMessage& message, const std::atomic<bool>* cancelled);
  Attempt SendOnce(const McpMessage& message, const std::atomic<bool>* cancelled,
                   const Deliver& deliver);
  bool RenewSession(const std::string& stale_id);

  void StartServerStream();
  void ServerStreamLoop();
  // Sleeps `delay`, or until stopping. False when stopping.
  bool Pause(std::chrono::milliseconds delay);
  void EndSession();

  const McpHttp* http_;
  const std::atomic<bool>* interrupted_;
  std::atomic<bool> stopping_{false};
  // Raised when the session changes: the GET stream of the old one is dropped.
  std::atomic<bool> session_changed_{false};

  std::mutex out_mu_;           // One line at a time on stdout.
  std::mutex renew_mu_;         // One session renewal at a time.
  std::mutex mu_;               // Guards everything below.
  std::condition_variable cv_;  // A request finished, the session changed, or stopping.
  bool shut_down_ = false;
  Session session_;
  std::string initialize_text_;  // The client's initialize, replayed to renew.
  std::list<std::unique_ptr<Request>> requests_;
  std::thread stream_thread_;
};

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_MCP_RELAY_H_
