// fake_llm_server: a scripted OpenAI-compatible Chat Completions server for
// tests. It stands in for the model so that Execute mode is tested against a
// real HTTP server process, with replies chosen by each test.
//
//   fake_llm_server --port 0     binds 127.0.0.1 (0 = a free port) and prints
//                                "listening on <port>"; serves until SIGTERM.
//   POST /v1/chat/completions    records the request and answers with the
//                                next scripted reply; none left: HTTP 500.
//   POST /_script                {"replies":[reply...]} appends replies:
//       {"content": "..."}       200, a chat.completion with that message
//                                (usage: chars/4, or "usage" as given)
//       {"status": N, "body": "..."}   that status and raw body
//       {"raw": "..."}           200 with that raw body
//       "delay_ms": N            wait first (other requests are served)
//       "match": "text"          only for a request whose last user message
//                                contains "text"; requests no marker matches
//                                take the first reply without one
//   GET  /_requests              [{"authorization","body"}] in arrival order
//   POST /_reset                 forgets replies and requests
//   GET  /health                 200
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace {

using nlohmann::json;

std::mutex mu;
std::deque<json> script;
json requests = json::array();
httplib::Server* server = nullptr;

std::string LastUserMessage(const json& body) {
  if (!body.is_object() || !body.contains("messages") || !body["messages"].is_array()) return "";
  const json& m = body["messages"];
  for (auto it = m.rbegin(); it != m.rend(); ++it) {
    if (it->is_object() && it->value("role", "") == "user" && (*it)["content"].is_string()) {
      return (*it)["content"].get<std::string>();
    }
  }
  return "";
}

// Takes the reply for a request whose last user message is `text`.
bool Take(const std::string& text, json* reply) {
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = script.begin(); it != script.end(); ++it) {
    if (it->contains("match") &&
        text.find((*it)["match"].get<std::string>()) != std::string::npos) {
      *reply = *it;
      script.erase(it);
      return true;
    }
  }
  for (auto it = script.begin(); it != script.end(); ++it) {
    if (!it->contains("match")) {
      *reply = *it;
      script.erase(it);
      return true;
    }
  }
  return false;
}

void Chat(const httplib::Request& req, httplib::Response& res) {
  json body = json::parse(req.body, nullptr, false);
  {
    std::lock_guard<std::mutex> lock(mu);
    requests.push_back({{"authorization", req.get_header_value("Authorization")},
                        {"body", body.is_discarded() ? json(req.body) : body}});
  }
  json reply;
  if (!Take(LastUserMessage(body), &reply)) {
    res.status = 500;
    res.set_content(R"({"error":{"message":"fake llm: script exhausted","type":"server_error"}})",
                    "application/json");
    return;
  }
  if (int64_t delay = reply.value("delay_ms", int64_t{0}); delay > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
  }
  if (reply.contains("status")) {
    res.status = reply["status"].get<int>();
    res.set_content(reply.value("body", ""), "application/json");
    return;
  }
  if (reply.contains("raw")) {
    res.status = 200;
    res.set_content(reply["raw"].get<std::string>(), "application/json");
    return;
  }
  std::string content = reply.value("content", "");
  size_t prompt_chars = 0;
  if (body.is_object() && body["messages"].is_array()) {
    for (const auto& m : body["messages"]) {
      if (m.is_object() && m["content"].is_string())
        prompt_chars += m["content"].get_ref<const std::string&>().size();
    }
  }
  json usage = reply.contains("usage")
                   ? reply["usage"]
                   : json{{"prompt_tokens", prompt_chars / 4},
                          {"completion_tokens", content.size() / 4},
                          {"total_tokens", prompt_chars / 4 + content.size() / 4}};
  json answer = {{"id", "chatcmpl-fake"},
                 {"object", "chat.completion"},
                 {"created", 0},
                 {"model", body.is_object() ? body.value("model", "fake") : "fake"},
                 {"choices",
                  {{{"index", 0},
                    {"message", {{"role", "assistant"}, {"content", content}}},
                    {"finish_reason", "stop"}}}},
                 {"usage", usage}};
  res.status = 200;
  res.set_content(answer.dump(), "application/json");
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--port") == 0) port = std::atoi(argv[i + 1]);
  }
  httplib::Server http;
  server = &http;
  http.Post("/v1/chat/completions", Chat);
  http.Post("/_script", [](const httplib::Request& req, httplib::Response& res) {
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body["replies"].is_array()) {
      res.status = 400;
      res.set_content(R"({"error":"expected {\"replies\":[...]}"})", "application/json");
      return;
    }
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& r : body["replies"]) script.push_back(r);
    res.set_content("{}", "application/json");
  });
  http.Get("/_requests", [](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    res.set_content(requests.dump(), "application/json");
  });
  http.Post("/_reset", [](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    script.clear();
    requests = json::array();
    res.set_content("{}", "application/json");
  });
  http.Get("/health", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok", "text/plain");
  });
  int bound = port == 0 ? http.bind_to_any_port("127.0.0.1") : port;
  if (port != 0 && !http.bind_to_port("127.0.0.1", port)) bound = -1;
  if (bound <= 0) {
    std::fprintf(stderr, "fake_llm_server: cannot bind\n");
    return 1;
  }
  signal(SIGTERM, [](int) {
    if (server != nullptr) server->stop();
  });
  std::printf("listening on %d\n", bound);
  std::fflush(stdout);
  http.listen_after_bind();
  return 0;
}
