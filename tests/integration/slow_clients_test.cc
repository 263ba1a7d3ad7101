// Slow clients: connections that trickle a request, or sit idle, must not
// hold the HTTP threads (api/connection_guard.h). With 4 threads, a dozen
// connections from one address sending a header line every second made
// the service answer nobody, /healthz included.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using Clock = std::chrono::steady_clock;

// A TCP connection to the server from `source` (any 127.0.0.0/8 address is
// this host); -1 on failure.
int Connect(int port, const char* source) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source, &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    close(fd);
    return -1;
  }
  timeval tv{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

// Whether the server closed `fd` (EOF or reset) before `deadline`.
bool ClosedByServerBefore(int fd, Clock::time_point deadline) {
  char buf[4096];
  while (Clock::now() < deadline) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      return true;
    }
  }
  return false;
}

// GET /healthz on a fresh connection from 127.0.0.1; the status line, or
// "" if nothing came within `wait`.
std::string Healthz(int port, std::chrono::seconds wait) {
  int fd = Connect(port, "127.0.0.1");
  if (fd < 0) return "";
  std::string req = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  (void)send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string got;
  char buf[1024];
  auto deadline = Clock::now() + wait;
  while (Clock::now() < deadline && got.find("\r\n") == std::string::npos) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n > 0) got.append(buf, static_cast<size_t>(n));
    if (n == 0) break;
  }
  close(fd);
  return got.substr(0, got.find("\r\n"));
}

class SlowClientsTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "server: {listen: 127.0.0.1:0, threads: 4, request_read_timeout_ms: 3000, "
           "max_waiting_connections_per_address: 2}\n";
  }
};

TEST_F(SlowClientsTest, TricklingConnectionsFromOneAddressLeaveTheThreadsToOthers) {
  const int port = server_->port();
  std::vector<int> slow;
  for (int i = 0; i < 12; ++i) {
    int fd = Connect(port, "127.0.0.2");
    ASSERT_GE(fd, 0);
    std::string head = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    (void)send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    slow.push_back(fd);
  }
  // Each sends one more header line a second, for as long as it is open.
  std::atomic<bool> stop{false};
  std::thread trickle([&] {
    while (!stop) {
      for (int fd : slow) (void)send(fd, "X-a: b\r\n", 8, MSG_NOSIGNAL | MSG_DONTWAIT);
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  // Another client is served while they trickle.
  EXPECT_EQ(Healthz(port, std::chrono::seconds(30)), "HTTP/1.1 200 OK");
  // Every trickling connection is closed by the server: the address's
  // oldest when newer ones came, the rest at the read deadline.
  auto deadline = Clock::now() + std::chrono::seconds(60);
  int closed = 0;
  for (int fd : slow) closed += ClosedByServerBefore(fd, deadline);
  EXPECT_EQ(closed, 12);
  stop = true;
  trickle.join();
  for (int fd : slow) close(fd);
  EXPECT_EQ(Healthz(port, std::chrono::seconds(30)), "HTTP/1.1 200 OK");
}

TEST_F(SlowClientsTest, ABodyThatNeverArrivesIsCutOffAtTheReadDeadline) {
  const int port = server_->port();
  int fd = Connect(port, "127.0.0.1");
  ASSERT_GE(fd, 0);
  std::string head =
      "POST /v1/execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 100000\r\n\r\n{\"code\":\"";
  ASSERT_GT(send(fd, head.data(), head.size(), MSG_NOSIGNAL), 0);
  // One byte every 500 ms: each read succeeds, the request never completes.
  size_t sent = 0;
  auto deadline = Clock::now() + std::chrono::seconds(60);
  bool closed = false;
  while (!closed && Clock::now() < deadline) {
    if (send(fd, "x", 1, MSG_NOSIGNAL) == 1) ++sent;
    closed = ClosedByServerBefore(fd, Clock::now() + std::chrono::milliseconds(500));
  }
  EXPECT_TRUE(closed) << "still open after " << sent << " bytes";
  EXPECT_LT(sent, 100000u);
  close(fd);
}

}  // namespace
}  // namespace coderunner::testing
