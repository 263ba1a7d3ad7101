#include "mcp_client.h"

#include <httplib.h>

#include <cctype>
#include <sstream>
#include <utility>

namespace coderunner::testing {
namespace {

using nlohmann::json;

// Long enough for a tools/call of a hostile program (its limits, a cold
// container); only a broken server is ever this slow.
constexpr int kReadTimeoutS = 240;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

McpAnswer Answer(const httplib::Result& r) {
  McpAnswer a;
  if (!r) {
    a.body = "request failed: " + httplib::to_string(r.error());
    return a;
  }
  a.status = r->status;
  a.body = r->body;
  for (const auto& [name, value] : r->headers) a.headers[Lower(name)] = value;
  if (Lower(r->get_header_value("Content-Type")).rfind("text/event-stream", 0) == 0) {
    a.messages = SseMessages(a.body);
  } else {
    json one = json::parse(a.body, nullptr, false);
    if (!one.is_discarded()) a.messages.push_back(std::move(one));
  }
  for (const json& m : a.messages) {
    if (m.is_object() && (m.contains("result") || m.contains("error"))) a.response = m;
  }
  return a;
}

httplib::Headers Merged(const std::map<std::string, std::string>& base,
                        const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> all;
  for (const auto& [k, v] : base) all[Lower(k)] = v;
  for (const auto& [k, v] : overrides) all[Lower(k)] = v;
  httplib::Headers h;
  for (const auto& [k, v] : all) {
    if (!v.empty()) h.emplace(k, v);
  }
  return h;
}

}  // namespace

std::vector<json> SseMessages(const std::string& body) {
  std::vector<json> out;
  std::istringstream in(body);
  std::string line;
  std::string data;
  bool has_data = false;
  auto flush = [&] {
    if (has_data) {
      json m = json::parse(data, nullptr, false);
      if (!m.is_discarded()) out.push_back(std::move(m));
    }
    data.clear();
    has_data = false;
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      flush();
    } else if (line.rfind("data:", 0) == 0) {
      std::string part = line.substr(5);
      if (!part.empty() && part.front() == ' ') part.erase(0, 1);
      data += (has_data ? "\n" : "") + part;
      has_data = true;
    }
  }
  flush();
  return out;
}

McpClient::McpClient(int port, std::string key) : port_(port), key_(std::move(key)) {}

McpAnswer McpClient::Post(const std::string& body,
                          const std::map<std::string, std::string>& headers,
                          bool with_session) const {
  std::map<std::string, std::string> base = {
      {"Accept", "application/json, text/event-stream"},
      {"Content-Type", "application/json"},
  };
  if (!key_.empty()) base["Authorization"] = "Bearer " + key_;
  if (with_session && !session_id_.empty()) {
    base["Mcp-Session-Id"] = session_id_;
    base["MCP-Protocol-Version"] = "2025-06-18";
  }
  httplib::Headers h = Merged(base, headers);
  std::string type = "application/json";
  if (auto it = h.find("content-type"); it != h.end()) {
    type = it->second;
    h.erase(it);
  }
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(kReadTimeoutS, 0);
  return Answer(c.Post("/mcp", h, body, type.c_str()));
}

McpAnswer McpClient::Request(const std::string& method, const json& params) {
  json message = {{"jsonrpc", "2.0"}, {"id", next_id_++}, {"method", method}, {"params", params}};
  return Post(message.dump());
}

McpAnswer McpClient::Notify(const std::string& method, const json& params) const {
  json message = {{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
  return Post(message.dump());
}

McpAnswer McpClient::Initialize() {
  json params = {{"protocolVersion", "2025-06-18"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "coderunner-integration-tests"}, {"version", "1.0.0"}}}};
  session_id_.clear();
  McpAnswer a = Request("initialize", params);
  if (a.status == 200) {
    auto it = a.headers.find("mcp-session-id");
    if (it != a.headers.end()) session_id_ = it->second;
    Notify("notifications/initialized");
  }
  return a;
}

McpAnswer McpClient::CallTool(const std::string& name, const json& arguments) {
  return Request("tools/call", {{"name", name}, {"arguments", arguments}});
}

McpAnswer McpClient::Delete() const {
  httplib::Headers h;
  if (!key_.empty()) h.emplace("Authorization", "Bearer " + key_);
  if (!session_id_.empty()) h.emplace("Mcp-Session-Id", session_id_);
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(kReadTimeoutS, 0);
  return Answer(c.Delete("/mcp", h));
}

McpGetStream::McpGetStream(int port, const std::string& key, const std::string& session_id)
    : opened_future_(opened_.get_future()),
      client_(std::make_unique<httplib::Client>("127.0.0.1", port)) {
  client_->set_read_timeout(kReadTimeoutS, 0);
  thread_ = std::thread([this, key, session_id] {
    httplib::Headers h = {{"Accept", "text/event-stream"}, {"Mcp-Session-Id", session_id}};
    if (!key.empty()) h.emplace("Authorization", "Bearer " + key);
    int status = 0;
    auto tell = [this](int s) {
      if (!told_.exchange(true)) opened_.set_value(s);
    };
    client_->Get(
        "/mcp", h,
        [&](const httplib::Response& res) {
          status = res.status;
          if (status != 200) tell(status);
          return true;
        },
        [&](const char*, size_t) {
          tell(status);
          return true;
        });
    tell(status);
  });
}

McpGetStream::~McpGetStream() {
  client_->stop();
  thread_.join();
}

int McpGetStream::WaitOpened() { return opened_future_.get(); }

}  // namespace coderunner::testing
