// McpHttp: one HTTP exchange with an MCP server's Streamable HTTP endpoint
// ({base}/mcp), as `coderunner mcp` needs it: a POST of one message whose
// answer may be JSON or an event stream (relayed event by event, as it
// arrives), the session's GET stream, and the DELETE that ends a session.
// Holds no session state (the caller passes the headers); const and
// thread-safe: each exchange has its own curl handle.
#ifndef CODERUNNER_CLI_MCP_HTTP_H_
#define CODERUNNER_CLI_MCP_HTTP_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::cli {

// Reason of the error an exchange ends with when one of its abort flags
// was raised.
inline constexpr char kReasonAborted[] = "aborted";

struct McpExchange {
  std::string method = "POST";   // "POST", "GET" or "DELETE".
  std::string body;              // POST: one JSON-RPC message.
  std::string session_id;        // Sent as Mcp-Session-Id when not empty.
  std::string protocol_version;  // Sent as MCP-Protocol-Version when not empty.
  // Limit on the whole exchange; zero means none (a stream lasts as long
  // as its tool call; a dead peer is found by TCP keep-alive).
  std::chrono::seconds timeout{0};
  // The exchange is abandoned within about a second once any of these
  // (not owned; each outlives the call) is true.
  std::vector<const std::atomic<bool>*> abort_when;
};

// The answer's head: known before any of its events is handed on.
struct McpAnswerHead {
  int http_status = 0;
  std::string session_id;  // Its Mcp-Session-Id header, "" if none.
  // 200 with text/event-stream (and an event handler was given): the
  // events go to the handler.
  bool streamed = false;
};

struct McpAnswer {
  McpAnswerHead head;
  std::string body;      // The body unless it was streamed (bounded, see Exchange).
  bool stopped = false;  // The event handler ended the stream.
};

class McpHttp {
 public:
  // Called once per answer, when its head is complete (before any event).
  using HeadHandler = std::function<void(const McpAnswerHead& head)>;
  // Called with each event's data (events without data are skipped);
  // returning false ends the stream (Exchange returns OK, stopped set).
  using EventHandler = std::function<bool(const std::string& data)>;

  // `base_url` like "http://127.0.0.1:8080" (without /mcp); `api_key` ""
  // sends no Authorization header.
  McpHttp(std::string base_url, std::string api_key);

  // Sends `exchange` to {base_url}/mcp and returns the answer, whatever its
  // HTTP status; a 200 text/event-stream body goes to `on_event` as it
  // arrives, any other body is returned. Errors: Unavailable when the
  // server cannot be reached or the connection breaks (naming the URL),
  // with reason kReasonAborted when an abort flag was raised;
  // DeadlineExceeded past exchange.timeout; ResourceExhausted for a body
  // or an event longer than kMaxMcpMessageBytes.
  StatusOr<McpAnswer> Exchange(const McpExchange& exchange, const HeadHandler& on_head,
                               const EventHandler& on_event) const;

  const std::string& url() const { return url_; }

 private:
  std::string url_;
  std::string api_key_;
};

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_MCP_HTTP_H_
