// One connection through the egress proxy: read the head, check the host,
// resolve and check each address, connect, relay within the byte budget.
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "coderunner/common/address_policy.h"
#include "proxy_request.h"
#include "proxy_shared.h"

namespace coderunner::egress {
namespace {

using Clock = std::chrono::steady_clock;

// Bytes read or written at once in the relay.
constexpr size_t kRelayChunk = 64 << 10;

enum class Wait { kReady, kStopped, kTimedOut, kFailed };

// Waits until `fd` has `events` or the proxy is finishing.
Wait WaitFor(int fd, short events, int wake, int64_t timeout_ms) {
  for (;;) {
    pollfd fds[2] = {{fd, events, 0}, {wake, POLLIN, 0}};
    const int n = poll(fds, 2, static_cast<int>(timeout_ms));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Wait::kFailed;
    if (fds[1].revents != 0) return Wait::kStopped;
    if (n == 0) return Wait::kTimedOut;
    return Wait::kReady;
  }
}

// Writes all of `data` to the non-blocking `fd`.
Wait WriteAll(int fd, const char* data, size_t size, int wake, int64_t timeout_ms) {
  while (size > 0) {
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n > 0) {
      data += n;
      size -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) return Wait::kFailed;
    const Wait w = WaitFor(fd, POLLOUT, wake, timeout_ms);
    if (w != Wait::kReady) return w;
  }
  return Wait::kReady;
}

// An answer from the proxy itself: `code` with `reason` as its reason
// phrase (what a client shows: "Tunnel connection failed: 403 ..."). Given
// only after End logged the request: a client that reads the answer to its
// Content-Length returns at once, and the Drain that ends a sandbox's call
// must already list it.
void Answer(int client, int code, std::string reason, int wake) {
  // What the job sent may be quoted: no control byte reaches the status
  // line (a bare LF there would split the answer).
  for (char& c : reason) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  const std::string text =
      "HTTP/1.1 " + std::to_string(code) + " coderunner egress: " + reason +
      "\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(reason.size() + 1) +
      "\r\nConnection: close\r\n\r\n" + reason + "\n";
  (void)WriteAll(client, text.data(), text.size(), wake, 1000);
}

// The connection's state as it goes.
struct Conn {
  int client = -1;
  int upstream = -1;
  EgressProxy::Shared& shared;
  EgressRecord record;
  std::string head;  // Read so far; then what followed the head.
  Clock::time_point t0 = Clock::now();
};

void End(Conn& c, const char* outcome, std::string detail = "") {
  c.record.outcome = outcome;
  c.record.detail = std::move(detail);
  c.record.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - c.t0).count();
  c.shared.Record(std::move(c.record));
}

// Reads through "\r\n\r\n". False (with the record ended) if it never came.
bool ReadHead(Conn& c, bool* silent) {
  const EgressPolicy& p = c.shared.policy;
  char buf[4096];
  for (;;) {
    if (c.head.find("\r\n\r\n") != std::string::npos) return true;
    if (c.head.size() > kMaxRequestHead) {
      End(c, kOutcomeBadRequest, "a head over " + std::to_string(kMaxRequestHead) + " bytes");
      Answer(c.client, 431, "request head too large", c.shared.wake);
      return false;
    }
    const Wait w = WaitFor(c.client, POLLIN, c.shared.wake, p.idle_timeout_ms);
    if (w == Wait::kStopped) {
      // What the job sent before it ended counts, read or not.
      const ssize_t last = recv(c.client, buf, sizeof(buf), 0);
      if (last > 0) c.head.append(buf, static_cast<size_t>(last));
      if (!c.head.empty()) End(c, kOutcomeJobEnded);
      *silent = c.head.empty();
      return false;
    }
    const ssize_t n = w == Wait::kReady ? recv(c.client, buf, sizeof(buf), 0) : -1;
    if (n < 0 && (errno == EAGAIN || errno == EINTR) && w == Wait::kReady) continue;
    if (n <= 0) {
      *silent = c.head.empty();
      if (!*silent) End(c, w == Wait::kTimedOut ? kOutcomeIdleTimeout : kOutcomeBadRequest);
      return false;
    }
    c.head.append(buf, static_cast<size_t>(n));
  }
}

// Connects to the first address of c.record's host that the policy allows.
bool ConnectUpstream(Conn& c) {
  const EgressPolicy& p = c.shared.policy;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc =
      getaddrinfo(c.record.host.c_str(), std::to_string(c.record.port).c_str(), &hints, &found);
  if (rc != 0) {
    const std::string why =
        std::string("cannot resolve ") + c.record.host + ": " + gai_strerror(rc);
    End(c, kOutcomeResolveFailed, why);
    Answer(c.client, 502, why, c.shared.wake);
    return false;
  }
  std::string refused, failed;
  for (addrinfo* a = found; a != nullptr && c.upstream < 0; a = a->ai_next) {
    const std::string text = SockaddrText(a->ai_addr);
    if (!MayConnectTo(p, a->ai_addr)) {
      refused = text;
      continue;
    }
    const int s = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) continue;
    int err = connect(s, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS &&
        WaitFor(s, POLLOUT, c.shared.wake, p.connect_timeout_ms) == Wait::kReady) {
      socklen_t len = sizeof(err);
      getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len);
    }
    if (err != 0) {
      failed = text + ": " + (err == EINPROGRESS ? "timed out" : std::strerror(err));
      close(s);
      continue;
    }
    c.upstream = s;
    c.record.address = text;
  }
  freeaddrinfo(found);
  if (c.upstream >= 0) return true;
  if (failed.empty() && !refused.empty()) {
    const std::string why =
        c.record.host + " resolves to " + refused + ", a private address this tier may not reach";
    End(c, kOutcomeRefusedAddress, why);
    Answer(c.client, 403, why, c.shared.wake);
    return false;
  }
  const std::string why = "cannot connect to " + c.record.host + " (" + failed + ")";
  End(c, kOutcomeConnectFailed, why);
  Answer(c.client, 502, why, c.shared.wake);
  return false;
}

// Moves what `from` has to `to`; false when the relay should end, with
// `outcome` set (kOutcomeOk once both sides are done).
bool Pump(Conn& c, int from, int to, int64_t* counter, bool* closed, const char** outcome) {
  char buf[kRelayChunk];
  const ssize_t n = recv(from, buf, sizeof(buf), 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (n < 0) {  // Reset: the relay ends as the peer chose.
    *outcome = kOutcomeOk;
    return false;
  }
  if (n == 0) {
    *closed = true;
    // The job's side ends only once the request is logged (ServeConnection
    // closes it after End): a job that read its answer to the end finds the
    // request in the log, and a sandbox's call in that call's Drain.
    if (to != c.client) shutdown(to, SHUT_WR);
    return true;
  }
  const int64_t may = c.shared.Take(n);
  const Wait w =
      WriteAll(to, buf, static_cast<size_t>(may), c.shared.wake, c.shared.policy.idle_timeout_ms);
  *counter += may;
  if (may < n) *outcome = kOutcomeByteLimit;
  if (w == Wait::kStopped) *outcome = kOutcomeJobEnded;
  if (w == Wait::kTimedOut) *outcome = kOutcomeIdleTimeout;
  if (w == Wait::kFailed) *outcome = kOutcomeOk;
  return *outcome == nullptr;
}

const char* Relay(Conn& c) {
  bool client_done = false, upstream_done = false;
  const char* outcome = nullptr;
  // The job may stop sending and still read; once the far side has closed,
  // the request is over.
  while (!upstream_done) {
    // A side that is done is left out (a negative fd), or its hang-up
    // would wake the poll at once, again and again.
    pollfd fds[3] = {{client_done ? -1 : c.client, POLLIN, 0},
                     {upstream_done ? -1 : c.upstream, POLLIN, 0},
                     {c.shared.wake, POLLIN, 0}};
    const int n = poll(fds, 3, static_cast<int>(c.shared.policy.idle_timeout_ms));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0 ? kOutcomeIdleTimeout : kOutcomeOk;
    if (fds[2].revents != 0) return kOutcomeJobEnded;
    if (fds[0].revents != 0 &&
        !Pump(c, c.client, c.upstream, &c.record.bytes_out, &client_done, &outcome)) {
      return outcome;
    }
    if (fds[1].revents != 0 &&
        !Pump(c, c.upstream, c.client, &c.record.bytes_in, &upstream_done, &outcome)) {
      return outcome;
    }
  }
  return kOutcomeOk;
}

void Serve(Conn& c) {
  bool silent = false;
  if (!ReadHead(c, &silent)) return;
  const size_t end = c.head.find("\r\n\r\n") + 4;
  auto request = ParseProxyRequest(std::string_view(c.head).substr(0, end));
  if (!request.ok()) {
    End(c, kOutcomeBadRequest, request.status().message());
    Answer(c.client, 400, request.status().message(), c.shared.wake);
    return;
  }
  c.record.method = request->method;
  c.record.host = request->host;
  c.record.port = request->port;
  const std::string rest = c.head.substr(end);
  if (!AllowsHost(c.shared.policy, request->host, request->port)) {
    const std::string why =
        request->host + ":" + std::to_string(request->port) + " is not in this tier's allowlist";
    End(c, kOutcomeRefusedHost, why);
    Answer(c.client, 403, why, c.shared.wake);
    return;
  }
  if (!ConnectUpstream(c)) return;
  const std::string first =
      request->tunnel ? "HTTP/1.1 200 Connection established\r\n\r\n" : request->upstream_head;
  const int first_fd = request->tunnel ? c.client : c.upstream;
  Wait w = WriteAll(first_fd, first.data(), first.size(), c.shared.wake,
                    c.shared.policy.idle_timeout_ms);
  if (w == Wait::kReady && !rest.empty()) {
    const int64_t may = c.shared.Take(static_cast<int64_t>(rest.size()));
    w = WriteAll(c.upstream, rest.data(), static_cast<size_t>(may), c.shared.wake,
                 c.shared.policy.idle_timeout_ms);
    c.record.bytes_out += may;
  }
  End(c, w == Wait::kReady ? Relay(c) : kOutcomeOk);
}

}  // namespace

void ServeConnection(int client, EgressProxy::Shared& shared) {
  Conn c{client, -1, shared, {}, {}};
  Serve(c);
  if (c.upstream >= 0) close(c.upstream);
  close(client);
}

}  // namespace coderunner::egress
