// ScriptedEngine: the fake engine transport, plus what orchestrator tests
// need from a container's attach stream.
//
// Answers come from FakeTransport's script. On top of it:
//  - An attach stream delivers its scripted body only once the container
//    has been started, as a real one does.
//  - HoldAttach(): an attach stream, once its scripted body is delivered,
//    stays open (as a running container's does) until that container is
//    killed or removed, so a job runs into its deadline or can be cancelled.
//  - SetAttachBody(): the attach body is computed from the last create body,
//    so a test can write coderunner-init's trailer with the run's nonce.
//  - PushAttach(): more output on a held attach stream, after it opened.
//  - WaitForRequest(): blocks until a request was received (bounded by a
//    hang guard, never a timing assertion).
#ifndef CODERUNNER_TESTS_UNIT_SANDBOX_SCRIPTED_ENGINE_H_
#define CODERUNNER_TESTS_UNIT_SANDBOX_SCRIPTED_ENGINE_H_

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::testutil {

// Generous bound, only so a broken orchestrator fails instead of hanging.
inline constexpr std::chrono::seconds kHangGuard{30};

// One frame of the engine's multiplexed attach stream (1 = stdout, 2 = stderr).
inline std::string MuxFrame(uint8_t stream, const std::string& payload) {
  std::string f(8, '\0');
  f[0] = static_cast<char>(stream);
  uint32_t n = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) f[4 + i] = static_cast<char>((n >> (8 * (3 - i))) & 0xff);
  return f + payload;
}

// coderunner-init's trailer line carrying `fields` (a JSON object).
inline std::string InitTrailerLine(const nlohmann::json& fields) {
  return "\x1e"
         "coderunner-init " +
         fields.dump() + "\n";
}

// The nonce a cold job's create body hands coderunner-init ("" if none).
inline std::string EofNonceOf(const nlohmann::json& create) {
  const std::string key = "CODERUNNER_EOF_NONCE=";
  if (!create.contains("Env")) return "";
  for (const auto& e : create["Env"]) {
    std::string s = e.get<std::string>();
    if (s.rfind(key, 0) == 0) return s.substr(key.size());
  }
  return "";
}

class ScriptedEngine : public FakeTransport {
 public:
  using BodyFn = std::function<std::string(const nlohmann::json& create)>;

  void HoldAttach() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = true;
  }
  void SetAttachBody(BodyFn fn) {
    std::lock_guard<std::mutex> lock(mu_);
    body_fn_ = std::move(fn);
  }

  // Answers every create (whatever the name) with container `id`, and its
  // inspect with what the create asked for (Docker's shape), `running` or
  // not: an engine that applied the policy. An `inspect_status` other than
  // 200 answers the inspect with that error instead.
  void AnswerCreatesAs(const std::string& id, bool running, long inspect_status = 200) {
    std::lock_guard<std::mutex> lock(mu_);
    create_id_ = id;
    running_ = running;
    inspect_status_ = inspect_status;
  }

  // Appends `bytes` to the oldest attach stream held open by HoldAttach(),
  // as a running container writes more output (a sandbox's reply to a
  // call, a pooled job's output after "go").
  void PushAttach(std::string bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    pushed_.push_back(std::move(bytes));
    cv_.notify_all();
  }

  // True once a `method` request whose path starts with `path_prefix` came.
  bool WaitForRequest(const std::string& method, const std::string& path_prefix) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kHangGuard, [&] { return CountLocked(method, path_prefix) > 0; });
  }
  int Count(const std::string& method, const std::string& path_prefix) const {
    std::lock_guard<std::mutex> lock(mu_);
    return CountLocked(method, path_prefix);
  }
  // Every request so far, as "METHOD path", in the order received.
  std::vector<std::string> Seen() const {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  // The body of the last create request (null if none).
  nlohmann::json LastCreateBody() const {
    auto all = requests();
    for (auto r = all.rbegin(); r != all.rend(); ++r) {
      if (r->method == "POST" && r->path.rfind("/containers/create", 0) == 0) {
        return nlohmann::json::parse(r->body);
      }
    }
    return nullptr;
  }

  StatusOr<engine::HttpResponse> Do(const engine::HttpRequest& request) override {
    ScriptFromCreate(request);
    auto answer = FakeTransport::Do(request);
    std::lock_guard<std::mutex> lock(mu_);
    seen_.push_back(request.method + " " + request.path);
    // Removal always ends the stream; a kill only when the engine took it.
    bool killed =
        request.path.find("/kill") != std::string::npos && answer.ok() && answer->status < 300;
    if (request.method == "DELETE" || killed) released_.insert(IdOf(request.path));
    bool started =
        request.path.find("/start") != std::string::npos && answer.ok() && answer->status < 300;
    if (started) started_.insert(IdOf(request.path));
    cv_.notify_all();
    return answer;
  }

  // Answers like the engine: the status line at once; a 2xx body only
  // once the container has been started (a container writes nothing
  // before), then, with HoldAttach(), stays open until it is released.
  StatusOr<engine::HttpResponse> Stream(const engine::HttpRequest& request,
                                        const engine::ChunkSink& sink,
                                        const std::function<void(long)>& on_response,
                                        engine::StreamAbort* abort) override {
    BodyFn fn;
    bool hold = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(request.method + " " + request.path);
      fn = body_fn_;
      hold = hold_;
      cv_.notify_all();
    }
    if (fn) Answer(request.method, request.path, 200, fn(LastCreateBody()));
    auto answer = FakeTransport::Do(request);
    if (!answer.ok()) return answer;
    if (on_response) on_response(answer->status);
    const std::string id = IdOf(request.path);
    const bool attached = answer->status >= 200 && answer->status < 300;
    if (attached && !WaitUntil(abort, [&] { return started_.count(id) + released_.count(id); })) {
      return UnavailableError("transfer aborted", "aborted");
    }
    if (!answer->body.empty() && !sink(answer->body)) {
      return UnavailableError("transfer aborted", "aborted");
    }
    // Held open: what PushAttach adds is delivered until the release.
    if (attached && hold) return Hold(id, sink, abort, answer->status);
    return engine::HttpResponse{answer->status, ""};
  }

 private:
  // Delivers what PushAttach adds to the held stream of container `id`
  // until it is released; the oldest held stream still open gets it.
  StatusOr<engine::HttpResponse> Hold(const std::string& id, const engine::ChunkSink& sink,
                                      engine::StreamAbort* abort, long status) {
    int serial;
    {
      std::lock_guard<std::mutex> lock(mu_);
      serial = next_serial_++;
      held_.push_back(serial);
    }
    auto leave = [this, serial] {
      std::lock_guard<std::mutex> lock(mu_);
      held_.erase(std::find(held_.begin(), held_.end(), serial));
      cv_.notify_all();
    };
    while (true) {
      auto mine = [&] { return !pushed_.empty() && held_.front() == serial; };
      if (!WaitUntil(abort, [&] { return released_.count(id) > 0 || mine(); })) {
        leave();
        return UnavailableError("transfer aborted", "aborted");
      }
      std::vector<std::string> chunks;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (mine()) chunks.swap(pushed_);
      }
      if (chunks.empty()) break;  // Released (or the hang guard).
      for (const std::string& chunk : chunks) {
        if (!sink(chunk)) {
          leave();
          return UnavailableError("transfer aborted", "aborted");
        }
      }
    }
    leave();
    return engine::HttpResponse{status, ""};
  }
  static std::string IdOf(const std::string& path) {
    size_t start = path.find("/containers/");
    if (start == std::string::npos) return "";
    start += 12;
    size_t end = path.find_first_of("/?", start);
    return path.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }
  void ScriptFromCreate(const engine::HttpRequest& request) {
    std::string id;
    bool running = false;
    long inspect_status = 200;
    {
      std::lock_guard<std::mutex> lock(mu_);
      id = create_id_;
      running = running_;
      inspect_status = inspect_status_;
    }
    if (id.empty()) return;
    if (request.method == "POST" && request.path.rfind("/containers/create", 0) == 0) {
      AnswerJson("POST", request.path, 201, {{"Id", id}});
      // A new container under a reused id has not started, nor been
      // removed: its stream carries nothing before its start.
      std::lock_guard<std::mutex> lock(mu_);
      started_.erase(id);
      released_.erase(id);
    } else if (request.method == "GET" && request.path == "/containers/" + id + "/json") {
      AnswerJson("GET", request.path, inspect_status,
                 inspect_status == 200 ? InspectOf(id, LastCreateBody(), running)
                                       : nlohmann::json{{"message", "scripted failure"}});
    }
  }
  static nlohmann::json InspectOf(const std::string& id, const nlohmann::json& c, bool running) {
    nlohmann::json inspect;
    inspect["Id"] = id;
    inspect["Image"] = "sha256:feed";
    inspect["State"] = {{"Running", running}, {"Status", running ? "running" : "exited"}};
    inspect["Config"] = {{"User", c["User"]},
                         {"Entrypoint", c["Entrypoint"]},
                         {"Cmd", c["Cmd"]},
                         {"Labels", c["Labels"]},
                         {"Env", nlohmann::json::array()}};
    inspect["HostConfig"] = c["HostConfig"];
    inspect["Mounts"] = MountsFromBinds(c["HostConfig"].value("Binds", nlohmann::json::array()));
    return inspect;
  }
  // Waits for `done` (under mu_); false if the caller aborted the stream.
  // StreamAbort notifies no waiter, so it is checked at each tick; the
  // hang guard only keeps a broken orchestrator from hanging the suite.
  template <typename Pred>
  bool WaitUntil(engine::StreamAbort* abort, Pred done) {
    std::unique_lock<std::mutex> lock(mu_);
    const auto guard = std::chrono::steady_clock::now() + kHangGuard;
    while (!done() && std::chrono::steady_clock::now() < guard) {
      if (abort != nullptr && abort->aborted()) return false;
      cv_.wait_for(lock, std::chrono::milliseconds(5));
    }
    return true;
  }
  int CountLocked(const std::string& method, const std::string& path_prefix) const {
    int n = 0;
    for (const auto& s : seen_) n += s.rfind(method + " " + path_prefix, 0) == 0 ? 1 : 0;
    return n;
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool hold_ = false;
  std::string create_id_;  // "" = creates answered from the script.
  bool running_ = false;
  long inspect_status_ = 200;
  BodyFn body_fn_;
  std::vector<std::string> pushed_;  // For the oldest held attach stream (PushAttach).
  std::vector<int> held_;            // Held streams still open, oldest first.
  int next_serial_ = 0;
  std::vector<std::string> seen_;
  std::set<std::string> started_;
  std::set<std::string> released_;
};

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_SANDBOX_SCRIPTED_ENGINE_H_
