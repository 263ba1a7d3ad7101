// ConnectionGuard::Watch raises the backlog of the port it watches
// (src/api/accept_hook.cc): a listener that asked for a backlog of 5, as
// cpp-httplib asks, completes the handshakes of a burst of clients it has
// not accepted yet. Before, the kernel dropped the handshakes past the
// sixth (1 s retries, some connections reset).
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "coderunner/api/connection_guard.h"

namespace coderunner::api {
namespace {

using namespace std::chrono_literals;

TEST(ListenBacklogTest, ABurstOfClientsIsNotDroppedBeforeAccept) {
  constexpr int kClients = 64;
  int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  ASSERT_GE(server, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(server, 5), 0);  // What cpp-httplib asks for.
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ConnectionGuard guard({0ms, 0});
  guard.Watch(ntohs(addr.sin_port));

  std::vector<int> clients;
  for (int i = 0; i < kClients; ++i) {
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    ASSERT_GE(c, 0);
    (void)connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    clients.push_back(c);
  }
  // A loopback handshake the kernel takes completes at once; one it drops
  // is retried only after a second.
  int connected = 0;
  for (int c : clients) {
    pollfd p{c, POLLOUT, 0};
    int err = 0;
    socklen_t err_len = sizeof(err);
    if (poll(&p, 1, 300) == 1 && getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &err_len) == 0 &&
        err == 0) {
      ++connected;
    }
  }
  // Queued for accept: the kernel keeps backlog + 1.
  int queued = 0;
  for (int a; (a = accept4(server, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
    ++queued;
    close(a);
  }
  EXPECT_EQ(connected, kClients);
  EXPECT_EQ(queued, kClients);
  for (int c : clients) close(c);
  close(server);
}

}  // namespace
}  // namespace coderunner::api
