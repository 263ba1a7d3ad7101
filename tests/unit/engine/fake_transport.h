// FakeTransport: an in-memory engine::Transport for unit tests.
//
// Answers are keyed by method + path (the path below /v1.41, query string
// included, exactly as the clients build it). They are either written in the
// test or loaded from recordings of real engines under
// tests/testdata/engine/{docker,podman}/<name>.json (see record.py there):
//   {"request": {"method", "path", "body"?}, "status": N, "body": JSON or text}
// Every request the fake receives is kept, so tests can assert what was sent.
// A request with no scripted answer fails with Internal "no_fake_answer".
#ifndef CODERUNNER_TESTS_UNIT_ENGINE_FAKE_TRANSPORT_H_
#define CODERUNNER_TESTS_UNIT_ENGINE_FAKE_TRANSPORT_H_

#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/engine/transport.h"

namespace coderunner::testutil {

// One recorded exchange with a real engine.
struct Recording {
  engine::HttpRequest request;
  engine::HttpResponse response;
  nlohmann::json body;  // The response body as recorded (JSON, or a string).
};

// The "Mounts" an engine's inspect reports for a create body's
// HostConfig.Binds ("src:dst:mode" strings), as bind mounts.
inline nlohmann::json MountsFromBinds(const nlohmann::json& binds) {
  nlohmann::json mounts = nlohmann::json::array();
  for (const auto& b : binds) {
    std::string s = b.get<std::string>();
    size_t a = s.find(':');
    size_t z = s.rfind(':');
    mounts.push_back({{"Type", "bind"},
                      {"Source", s.substr(0, a)},
                      {"Destination", s.substr(a + 1, z - a - 1)},
                      {"RW", s.substr(z + 1) == "rw"}});
  }
  return mounts;
}

inline std::string TestdataPath(const std::string& relative) {
  return std::string(CODERUNNER_TESTDATA) + "/" + relative;
}

// Loads tests/testdata/engine/<engine>/<name>.json. Throws if it is missing
// or malformed (a broken fixture is a test bug, not a case to handle).
inline Recording LoadRecording(const std::string& engine_name, const std::string& name) {
  std::string path = TestdataPath("engine/" + engine_name + "/" + name + ".json");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("missing recording " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str());
  Recording r;
  r.request.method = j.at("request").at("method").get<std::string>();
  r.request.path = j.at("request").at("path").get<std::string>();
  if (j["request"].contains("body")) r.request.body = j["request"]["body"].dump();
  r.response.status = j.at("status").get<long>();
  r.body = j.at("body");
  r.response.body = r.body.is_string() ? r.body.get<std::string>() : r.body.dump();
  return r;
}

class FakeTransport : public engine::Transport {
 public:
  // Answers `method path` with `status` and `body`.
  void Answer(const std::string& method, const std::string& path, long status, std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    answers_[Key(method, path)] = Scripted{engine::HttpResponse{status, std::move(body)}, {}};
  }
  // Answers the next `method path` only with `status` and `body`, before
  // the standing answer (several such calls answer in the order given).
  void AnswerOnce(const std::string& method, const std::string& path, long status,
                  std::string body) {
    std::lock_guard<std::mutex> lock(mu_);
    once_[Key(method, path)].push_back(Scripted{engine::HttpResponse{status, std::move(body)}, {}});
  }
  void AnswerJson(const std::string& method, const std::string& path, long status,
                  const nlohmann::json& body) {
    Answer(method, path, status, body.dump());
  }

  // Replays a recording for the request it was recorded with.
  void Replay(const Recording& r) {
    Answer(r.request.method, r.request.path, r.response.status, r.response.body);
  }
  Recording Replay(const std::string& engine_name, const std::string& name) {
    Recording r = LoadRecording(engine_name, name);
    Replay(r);
    return r;
  }

  // Makes `method path` fail at the transport level (as if the socket were
  // unreachable) with `status`.
  void Fail(const std::string& method, const std::string& path, Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    answers_[Key(method, path)] = Scripted{{}, std::move(status)};
  }
  // Makes every request fail with `status` (engine gone).
  void FailEverything(Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_all_ = std::move(status);
  }

  // For Stream: how many bytes each sink call gets (0 = the whole body).
  void set_stream_chunk_size(size_t n) { chunk_size_ = n; }

  std::vector<engine::HttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  // The last request received; the test fails loudly if there was none.
  engine::HttpRequest last_request() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (requests_.empty()) throw std::runtime_error("FakeTransport got no request");
    return requests_.back();
  }

  StatusOr<engine::HttpResponse> Do(const engine::HttpRequest& request) override {
    return Lookup(request);
  }

  StatusOr<engine::HttpResponse> Stream(const engine::HttpRequest& request,
                                        const engine::ChunkSink& sink,
                                        const std::function<void(long)>& on_response,
                                        engine::StreamAbort*) override {
    auto answer = Lookup(request);
    if (!answer.ok()) return answer;
    if (on_response) on_response(answer->status);
    std::string_view body = answer->body;
    size_t step = chunk_size_ == 0 ? std::max<size_t>(body.size(), 1) : chunk_size_;
    for (size_t i = 0; i < body.size(); i += step) {
      if (!sink(body.substr(i, step))) return UnavailableError("transfer aborted", "aborted");
    }
    return engine::HttpResponse{answer->status, ""};
  }

 private:
  struct Scripted {
    engine::HttpResponse response;
    Status error;
  };

  static std::string Key(const std::string& method, const std::string& path) {
    return method + " " + path;
  }

  StatusOr<engine::HttpResponse> Lookup(const engine::HttpRequest& request) {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    if (!fail_all_.ok()) return fail_all_;
    auto once = once_.find(Key(request.method, request.path));
    if (once != once_.end() && !once->second.empty()) {
      engine::HttpResponse first = once->second.front().response;
      once->second.pop_front();
      return first;
    }
    auto it = answers_.find(Key(request.method, request.path));
    if (it == answers_.end()) {
      return InternalError("FakeTransport: no answer for " + Key(request.method, request.path),
                           "no_fake_answer");
    }
    if (!it->second.error.ok()) return it->second.error;
    return it->second.response;
  }

  mutable std::mutex mu_;
  std::map<std::string, Scripted> answers_;
  std::map<std::string, std::deque<Scripted>> once_;
  std::vector<engine::HttpRequest> requests_;
  Status fail_all_;
  size_t chunk_size_ = 0;
};

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_ENGINE_FAKE_TRANSPORT_H_
