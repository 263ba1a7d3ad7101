// CurlTransport against a real Unix-socket server that this test scripts:
// a streaming request must end when its StreamAbort fires, whatever the
// server does (Docker 20.10 never closes the attach stream of a container
// removed before it started).
#include "coderunner/engine/curl_transport.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <thread>

namespace coderunner::engine {
namespace {

using namespace std::chrono_literals;

// What the scripted server does after reading a request.
enum class Script {
  kSilent,          // Never answers and never closes.
  kHeadersOnly,     // Answers 200 with a raw stream, sends one chunk, then idles.
  kAnswerAndClose,  // Answers 200 with a body and closes.
};

// Accepts connections on a fresh socket path and plays `script` on each,
// holding every connection open until the server is destroyed.
class ScriptedServer {
 public:
  explicit ScriptedServer(Script script) : script_(script) {
    char tmpl[] = "/tmp/coderunner-curl-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ + "/engine.sock";
    listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path_.c_str());
    ok_ = listen_fd_ >= 0 &&
          bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
          listen(listen_fd_, 8) == 0 && pipe2(wake_, O_CLOEXEC) == 0;
    if (ok_) thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    if (thread_.joinable()) {
      char c = 'x';
      (void)!write(wake_[1], &c, 1);
      thread_.join();
    }
    for (int fd : clients_) close(fd);
    if (listen_fd_ >= 0) close(listen_fd_);
    close(wake_[0]);
    close(wake_[1]);
    std::filesystem::remove_all(dir_);
  }

  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }
  int connections() const { return connections_.load(); }

 private:
  void Serve() {
    for (;;) {
      pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (poll(fds, 2, -1) < 0) continue;
      if (fds[1].revents != 0) return;
      int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      ++connections_;
      clients_.push_back(client);
      // Read the request head (the tests send no body).
      std::string head;
      char buf[4096];
      while (head.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = read(client, buf, sizeof(buf));
        if (n <= 0) break;
        head.append(buf, static_cast<size_t>(n));
      }
      std::string answer;
      switch (script_) {
        case Script::kSilent:
          break;
        case Script::kHeadersOnly:
          answer = "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n";
          answer += std::string("\x01\0\0\0\0\0\0\x03hi\n", 11);
          break;
        case Script::kAnswerAndClose:
          answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
          break;
      }
      if (!answer.empty()) (void)!write(client, answer.data(), answer.size());
      if (script_ == Script::kAnswerAndClose) {
        clients_.pop_back();
        close(client);
      }
    }
  }

  Script script_;
  std::string dir_;
  std::string path_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  bool ok_ = false;
  std::thread thread_;
  std::vector<int> clients_;  // Serve() only, then the destructor.
  std::atomic<int> connections_{0};
};

struct AbortCase {
  const char* name;
  Script script;
  bool abort_before_start;  // Abort() before Stream() is even called.
  bool abort;               // Abort() at all.
  StatusCode want;
  const char* want_reason;
  bool want_connection;  // Whether the server sees a connection.
};

class CurlTransportAbortTest : public ::testing::TestWithParam<AbortCase> {};

TEST_P(CurlTransportAbortTest, StreamEndsAsScripted) {
  const AbortCase& c = GetParam();
  ScriptedServer server(c.script);
  ASSERT_TRUE(server.ok());
  CurlTransport transport(server.path());
  StreamAbort abort;
  if (c.abort_before_start) abort.Abort();

  std::promise<void> responded;
  std::atomic<bool> signalled{false};
  std::string got;
  HttpRequest request;
  request.method = "POST";
  request.path = "/containers/x/attach?stream=1&stdout=1";
  request.timeout = 0ms;  // Unbounded: only the abort (or the server) ends it.
  auto result = std::async(std::launch::async, [&] {
    return transport.Stream(
        request,
        [&](std::string_view chunk) {
          got.append(chunk);
          return true;
        },
        [&](long) {
          if (!signalled.exchange(true)) responded.set_value();
        },
        &abort);
  });
  if (c.abort && !c.abort_before_start) {
    if (c.script == Script::kHeadersOnly) {
      // Abort mid-stream, once the answer has begun.
      responded.get_future().wait();
    } else {
      // Abort while the server sits on the request (before any answer);
      // the server has accepted the connection when this returns.
      while (server.connections() == 0) std::this_thread::sleep_for(1ms);
    }
    abort.Abort();
  }
  StatusOr<HttpResponse> r = result.get();
  EXPECT_EQ(r.status().code(), c.want) << r.status().ToString();
  if (r.ok()) {
    EXPECT_EQ(r->status, 200);
  } else {
    EXPECT_EQ(r.status().reason(), c.want_reason) << r.status().ToString();
  }
  EXPECT_EQ(server.connections() > 0, c.want_connection);
  EXPECT_TRUE(abort.aborted() == c.abort);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CurlTransportAbortTest,
    ::testing::Values(AbortCase{"AbortMidStreamEndsAStreamTheServerNeverCloses",
                                Script::kHeadersOnly, false, true, StatusCode::kUnavailable,
                                "aborted", true},
                      AbortCase{"AbortBeforeAnyAnswerEndsTheRequest", Script::kSilent, false, true,
                                StatusCode::kUnavailable, "aborted", true},
                      AbortCase{"AbortBeforeStartNeverConnects", Script::kSilent, true, true,
                                StatusCode::kUnavailable, "aborted", false},
                      AbortCase{"UnabortedStreamEndsWhenTheServerCloses", Script::kAnswerAndClose,
                                false, false, StatusCode::kOk, "", true}),
    [](const ::testing::TestParamInfo<AbortCase>& info) { return info.param.name; });

// A request after an abortable one on the same thread must not carry the
// abortable one's callbacks (curl handles are reused per thread).
TEST(CurlTransportTest, PlainRequestAfterAnAbortedStreamWorks) {
  ScriptedServer silent(Script::kSilent);
  ScriptedServer answering(Script::kAnswerAndClose);
  ASSERT_TRUE(silent.ok() && answering.ok());
  CurlTransport a(silent.path());
  CurlTransport b(answering.path());
  {
    StreamAbort abort;
    abort.Abort();
    HttpRequest request;
    request.timeout = 0ms;
    auto r = a.Stream(
        request, [](std::string_view) { return true; }, nullptr, &abort);
    EXPECT_EQ(r.status().reason(), "aborted");
  }  // `abort` is gone: nothing may point at it any more.
  HttpRequest get;
  get.path = "/_ping";
  auto r = b.Do(get);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, "ok");
}

}  // namespace
}  // namespace coderunner::engine
