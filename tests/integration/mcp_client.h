// McpClient: a small JSON-RPC client of a live server's /mcp (Streamable
// HTTP, docs/mcp.md), for tests that look at the protocol itself: every
// request is one POST whose headers a test can change, and every answer is
// kept whole (status, headers, body, and the JSON-RPC messages it carried as
// JSON or as a text/event-stream).
#ifndef CODERUNNER_TESTS_INTEGRATION_MCP_CLIENT_H_
#define CODERUNNER_TESTS_INTEGRATION_MCP_CLIENT_H_

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Client;
}  // namespace httplib

namespace coderunner::testing {

struct McpAnswer {
  int status = 0;  // 0 if the request failed before an answer.
  std::string body;
  std::map<std::string, std::string> headers;  // Names lower-cased.
  // The JSON-RPC messages of the body: the one JSON message, or each
  // `data:` event of a text/event-stream, in order.
  std::vector<nlohmann::json> messages;
  // The response (the message with a result or an error) among them; null
  // if none. A plain JSON error body (a REST-style refusal) is kept here
  // too.
  nlohmann::json response;
};

class McpClient {
 public:
  // A client of 127.0.0.1:`port`/mcp holding API key `key` ("" = no
  // Authorization header).
  McpClient(int port, std::string key);

  // POSTs `body` as it is, with the session id (if any and `with_session`),
  // Accept: application/json, text/event-stream, Content-Type:
  // application/json and the key, then `headers` (which replace any of
  // those by name; an empty value removes it).
  McpAnswer Post(const std::string& body, const std::map<std::string, std::string>& headers = {},
                 bool with_session = true) const;
  // A JSON-RPC request of `method` with `params` and the next id.
  McpAnswer Request(const std::string& method,
                    const nlohmann::json& params = nlohmann::json::object());
  // A JSON-RPC notification.
  McpAnswer Notify(const std::string& method,
                   const nlohmann::json& params = nlohmann::json::object()) const;
  // initialize, then notifications/initialized; keeps the session id.
  // Returns initialize's answer.
  McpAnswer Initialize();
  // tools/call of `name` with `arguments`; its answer (the response's
  // `result` is the tool's result).
  McpAnswer CallTool(const std::string& name, const nlohmann::json& arguments);
  // DELETE /mcp with the session id.
  McpAnswer Delete() const;

  const std::string& session_id() const { return session_id_; }
  void set_session_id(std::string id) { session_id_ = std::move(id); }

 private:
  int port_;
  std::string key_;
  std::string session_id_;
  int next_id_ = 1;
};

// A session's GET /mcp stream, held open on a thread of its own until the
// server ends it (the session deleted or ended) or this object is
// destroyed (which closes the connection; call WaitOpened first, so that
// the request is under way).
class McpGetStream {
 public:
  McpGetStream(int port, const std::string& key, const std::string& session_id);
  ~McpGetStream();
  McpGetStream(const McpGetStream&) = delete;
  McpGetStream& operator=(const McpGetStream&) = delete;

  // Blocks until the answer's status arrived (0 if the request failed),
  // and for a 200 until its first bytes: the stream is then open.
  int WaitOpened();

 private:
  std::promise<int> opened_;
  std::future<int> opened_future_;
  std::atomic<bool> told_ = false;
  std::unique_ptr<httplib::Client> client_;
  std::thread thread_;
};

// The JSON-RPC messages of a text/event-stream body (each event's `data:`
// lines joined), in order; a `data:` that is not JSON is skipped.
std::vector<nlohmann::json> SseMessages(const std::string& body);

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_MCP_CLIENT_H_
