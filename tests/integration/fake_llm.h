// FakeLlm: the scripted OpenAI-compatible server (tests/fake_llm) as a child
// process of a test. Header-only; not thread-safe.
#ifndef CODERUNNER_TESTS_INTEGRATION_FAKE_LLM_H_
#define CODERUNNER_TESTS_INTEGRATION_FAKE_LLM_H_

#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

extern char** environ;

namespace coderunner::testing {

class FakeLlm {
 public:
  // Starts the server on a free port; started() says whether it came up.
  FakeLlm() {
    int out[2];
    if (pipe(out) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::string bin = CODERUNNER_FAKE_LLM_BINARY;
    std::string port_flag = "--port", zero = "0";
    char* argv[] = {bin.data(), port_flag.data(), zero.data(), nullptr};
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv, environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    std::string line;
    char c;
    while (pid_ > 0 && read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    if (line.rfind("listening on ", 0) == 0) port_ = std::stoi(line.substr(13));
  }
  ~FakeLlm() {
    if (pid_ > 0) {
      // SIGKILL: a reply still sleeping in its delay must not hold the test.
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  FakeLlm(const FakeLlm&) = delete;
  FakeLlm& operator=(const FakeLlm&) = delete;

  bool started() const { return port_ > 0; }
  // A client of the server's script routes. A script of megabytes is
  // parsed by a server built with the sanitizers on a loaded machine (the
  // ASan stage runs the unit shards beside integration tests): seconds,
  // past httplib's default 5 s read bound. The bound only keeps a hung
  // server from hanging the test.
  httplib::Client Client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(std::chrono::seconds(60));
    c.set_write_timeout(std::chrono::seconds(60));
    return c;
  }
  int port() const { return port_; }
  // What goes into llm.base_url.
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

  // Appends scripted replies (see tests/fake_llm/fake_llm_server.cc).
  void Script(const nlohmann::json& replies) {
    httplib::Client c = Client();
    auto r = c.Post("/_script", nlohmann::json{{"replies", replies}}.dump(), "application/json");
    if (!r || r->status != 200) {
      ADD_FAILURE() << "fake llm: /_script failed: "
                    << (r ? "HTTP " + std::to_string(r->status) : httplib::to_string(r.error()));
    }
  }

  // Every chat request received so far: [{"authorization","body"}].
  nlohmann::json Requests() const {
    httplib::Client c = Client();
    auto r = c.Get("/_requests");
    if (!r || r->status != 200) return nlohmann::json::array();
    return nlohmann::json::parse(r->body, nullptr, false);
  }

  // The last user message of the `i`th chat request ("" if none).
  std::string LastUserMessage(size_t i) const {
    nlohmann::json all = Requests();
    if (!all.is_array() || i >= all.size()) return "";
    const auto& messages = all[i]["body"]["messages"];
    for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
      if ((*it).value("role", "") == "user") return (*it).value("content", "");
    }
    return "";
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// Replies for FakeLlm::Script, each taken only by a request whose last user
// message contains its marker (the prompts' own wording, see prompts.cc).
inline nlohmann::json AgentReply(const nlohmann::json& reply) {
  nlohmann::json r = reply;
  r["match"] = "Write an agent";
  return r;
}
inline nlohmann::json CodeReply(const std::string& content) {
  return {{"match", "Language: "}, {"content", content}};
}
inline nlohmann::json FixReply(const std::string& content) {
  return {{"match", "minimal fix"}, {"content", content}};
}
inline nlohmann::json FormatReply(const std::string& content) {
  return {{"match", "Raw output"}, {"content", content}};
}

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_FAKE_LLM_H_
