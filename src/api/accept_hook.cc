// The process's accept(): cpp-httplib (a shared library) accepts through
// it, so every connection of a port a ConnectionGuard watches is
// registered with that guard before httplib queues it. Everything else
// that accepts in this process is untouched.
//
// And the backlog of the port it watches: httplib listens with a backlog of
// 5, compiled into Debian's library. A burst of parallel clients (a
// harness opening 40 connections at once) overflowed it, and the kernel
// dropped their handshakes: 1 s retries, and some connections reset
// without an answer. Listening again on the same socket raises it.
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <string>

#include "coderunner/api/connection_guard.h"

namespace coderunner::api {

void AcceptHookAnchor() {}

namespace {

// The backlog of a watched port's listener (the kernel caps it at
// net.core.somaxconn).
constexpr int kListenBacklog = 1024;

// Local port and peer address of connection `fd`; port -1 if not TCP.
int LocalPort(int fd) {
  sockaddr_storage local{};
  socklen_t len = sizeof(local);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return -1;
  if (local.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
  if (local.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
  return -1;
}

std::string PeerAddress(int fd) {
  sockaddr_storage peer{};
  socklen_t len = sizeof(peer);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {0};
  const void* raw =
      peer.ss_family == AF_INET6
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&peer)->sin6_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&peer)->sin_addr);
  return inet_ntop(peer.ss_family, raw, text, sizeof(text)) != nullptr ? text : "";
}

}  // namespace

bool RaiseListenBacklog(int port) {
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return false;
  bool raised = false;
  while (dirent* e = readdir(fds)) {
    char* end = nullptr;
    const long fd = strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == dirfd(fds)) continue;
    int listening = 0;
    socklen_t len = sizeof(listening);
    if (getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 ||
        listening == 0 || LocalPort(static_cast<int>(fd)) != port) {
      continue;
    }
    raised = listen(static_cast<int>(fd), kListenBacklog) == 0 || raised;
  }
  closedir(fds);
  return raised;
}

}  // namespace coderunner::api

extern "C" int accept(int fd, sockaddr* addr, socklen_t* len) {
  int conn = accept4(fd, addr, len, 0);
  if (conn < 0) return conn;
  if (auto* guard = coderunner::api::ConnectionGuard::ForPort(coderunner::api::LocalPort(conn))) {
    guard->Register(conn, coderunner::api::PeerAddress(conn));
  }
  return conn;
}
