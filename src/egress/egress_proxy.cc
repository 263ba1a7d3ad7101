#include "coderunner/egress/egress_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "proxy_shared.h"

namespace coderunner::egress {
namespace {

// Connections the kernel may queue before the proxy accepts them.
constexpr int kListenBacklog = 64;

Status Unavailable(const std::string& what) {
  return InternalError("egress proxy: " + what + ": " + std::strerror(errno), "egress_unavailable");
}

// A listening socket on 127.0.0.1:`port`, made in the namespace at
// `netns_path` by a thread that enters it and ends: the socket stays in
// that namespace, and the service's own threads never leave theirs.
StatusOr<int> ListenIn(const std::string& netns_path, int port) {
  Status result = OkStatus();
  int listener = -1;
  std::thread maker([&] {
    if (!netns_path.empty()) {
      const int ns = open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
      if (ns < 0) {
        result = Unavailable("open " + netns_path);
        return;
      }
      // A container that shares the service's own namespace (a host
      // network) would put the proxy's port, and every other port of the
      // host, within its reach: refused.
      struct stat target {
      }, own{};
      if (fstat(ns, &target) != 0 || stat("/proc/self/ns/net", &own) != 0 ||
          (target.st_ino == own.st_ino && target.st_dev == own.st_dev)) {
        close(ns);
        errno = EEXIST;
        result = Unavailable(netns_path + " is the service's own network namespace");
        return;
      }
      const int entered = setns(ns, CLONE_NEWNET);
      close(ns);
      if (entered != 0) {
        result = Unavailable("enter " + netns_path);
        return;
      }
    }
    listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listener < 0) {
      result = Unavailable("socket");
      return;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        listen(listener, kListenBacklog) != 0) {
      result = Unavailable("listen on 127.0.0.1:" + std::to_string(port));
      close(listener);
      listener = -1;
    }
  });
  maker.join();
  if (!result.ok()) return result;
  return listener;
}

int BoundPort(int listener) {
  sockaddr_in addr{};
  socklen_t len = sizeof(addr);
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  return ntohs(addr.sin_port);
}

// Answers a connection past max_connections and closes it.
void RefuseBusy(int client, EgressProxy::Shared& shared) {
  static constexpr char kBusy[] =
      "HTTP/1.1 503 coderunner egress: too many connections at once\r\n"
      "Content-Length: 0\r\nConnection: close\r\n\r\n";
  // Logged first, as every answer of the proxy's own (proxy_connection.cc).
  EgressRecord r;
  r.outcome = kOutcomeTooMany;
  r.detail = "more than " + std::to_string(shared.policy.max_connections) + " open at once";
  shared.Record(std::move(r));
  (void)send(client, kBusy, sizeof(kBusy) - 1, MSG_NOSIGNAL);
  close(client);
}

}  // namespace

void EgressProxy::Shared::Record(EgressRecord r) {
  std::lock_guard<std::mutex> lock(mu);
  if (static_cast<int>(log.requests.size()) < policy.max_log_entries) {
    log.requests.push_back(std::move(r));
  } else {
    ++log.dropped;
  }
}

int64_t EgressProxy::Shared::Take(int64_t n) {
  int64_t used = bytes.load();
  for (;;) {
    const int64_t room = policy.max_bytes - used;
    if (room <= 0) return 0;
    const int64_t take = std::min(n, room);
    if (bytes.compare_exchange_weak(used, used + take)) return take;
  }
}

StatusOr<std::unique_ptr<EgressProxy>> EgressProxy::Open(const std::string& netns_path, int port,
                                                         EgressPolicy policy) {
  CR_ASSIGN_OR_RETURN(int listener, ListenIn(netns_path, port));
  const int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    Status s = Unavailable("eventfd");
    close(listener);
    return s;
  }
  return std::unique_ptr<EgressProxy>(
      new EgressProxy(listener, BoundPort(listener), wake, std::move(policy)));
}

EgressProxy::EgressProxy(int listener, int port, int wake, EgressPolicy policy)
    : listener_(listener), port_(port), wake_(wake), shared_(std::make_shared<Shared>()) {
  shared_->policy = std::move(policy);
  shared_->wake = wake_;
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

EgressProxy::~EgressProxy() { (void)Finish(); }

void EgressProxy::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {wake_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    shared_->JoinEnded();
    if (fds[0].revents == 0) continue;
    const int client = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client < 0) continue;
    std::unique_lock<std::mutex> lock(shared_->mu);
    if (shared_->active >= shared_->policy.max_connections) {
      lock.unlock();
      RefuseBusy(client, *shared_);
      continue;
    }
    ++shared_->active;
    const uint64_t id = shared_->next_thread++;
    std::shared_ptr<Shared> shared = shared_;
    shared_->threads.emplace(id, std::thread([client, shared, id] {
                               ServeConnection(client, *shared);
                               std::lock_guard<std::mutex> done(shared->mu);
                               --shared->active;
                               shared->ended.push_back(id);
                             }));
  }
}

void EgressProxy::Shared::JoinEnded() {
  std::vector<std::thread> done;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (uint64_t id : ended) {
      auto it = threads.find(id);
      done.push_back(std::move(it->second));
      threads.erase(it);
    }
    ended.clear();
  }
  for (std::thread& t : done) t.join();
}

EgressLog EgressProxy::Drain() {
  std::lock_guard<std::mutex> lock(shared_->mu);
  EgressLog log = std::move(shared_->log);
  shared_->log = EgressLog();
  log.bytes = shared_->bytes.load();
  return log;
}

EgressLog EgressProxy::Finish() {
  if (finished_) return {};
  finished_ = true;
  const uint64_t one = 1;
  (void)write(wake_, &one, sizeof(one));
  acceptor_.join();
  close(listener_);
  std::map<uint64_t, std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    threads.swap(shared_->threads);
    shared_->ended.clear();
  }
  for (auto& [id, t] : threads) t.join();
  close(wake_);
  std::lock_guard<std::mutex> lock(shared_->mu);
  EgressLog log = std::move(shared_->log);
  log.bytes = shared_->bytes.load();
  return log;
}

}  // namespace coderunner::egress
