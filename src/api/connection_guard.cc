#include "coderunner/api/connection_guard.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <utility>

#include "elastic_pool.h"

namespace coderunner::api {

// Defined in accept_hook.cc; referencing it keeps the hook linked in.
void AcceptHookAnchor();
bool RaiseListenBacklog(int port);  // accept_hook.cc

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kWatchdogTick = std::chrono::milliseconds(200);

// Connections of one address queued for a thread (holding no thread, one
// descriptor each) beyond which its oldest queued one goes: a harness's
// thousand waiters fit, a flood of connections does not take every
// descriptor.
constexpr int kMaxQueuedPerAddress = 4096;

// A thread started beyond server.threads ends after this long idle.
constexpr std::chrono::seconds kIdleThreadExit{10};

struct Tag {
  ConnectionGuard* guard = nullptr;
  uint64_t id = 0;
};
// The connection the accept hook registered last on this (accept) thread,
// until the next enqueue takes it.
thread_local Tag t_accepted;
// The connection this pool thread serves.
thread_local Tag t_current;

std::mutex g_ports_mu;
std::map<int, ConnectionGuard*>& Ports() {
  static auto* ports = new std::map<int, ConnectionGuard*>();
  return *ports;
}

}  // namespace

// Ties each pool task to the connection accepted just before it.
class ConnectionGuard::Queue : public httplib::TaskQueue {
 public:
  Queue(ConnectionGuard* guard, size_t threads, size_t max_threads)
      : guard_(guard), pool_(threads, max_threads, kIdleThreadExit) {}

  void enqueue(std::function<void()> fn) override {
    Tag tag = std::exchange(t_accepted, Tag{});
    if (tag.guard != guard_) tag = Tag{};
    pool_.enqueue([fn = std::move(fn), tag] {
      t_current = tag;
      if (tag.guard != nullptr) tag.guard->SetPhase(tag.id, Phase::kReading);
      fn();  // Reads, handles and finally closes the connection.
      if (tag.guard != nullptr) tag.guard->Release(tag.id);
      t_current = Tag{};
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  ConnectionGuard* guard_;
  ElasticPool pool_;
};

ConnectionGuard::ConnectionGuard(ConnectionLimits limits) : limits_(limits) {
  AcceptHookAnchor();
  watchdog_ = std::thread([this] { WatchdogLoop(); });
}

ConnectionGuard::~ConnectionGuard() {
  {
    std::lock_guard<std::mutex> lock(g_ports_mu);
    auto it = Ports().find(port_);
    if (it != Ports().end() && it->second == this) Ports().erase(it);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& [id, c] : conns_) close(c.dup_fd);
    conns_.clear();
  }
  stop_cv_.notify_all();
  watchdog_.join();
}

void ConnectionGuard::Watch(int port) {
  {
    std::lock_guard<std::mutex> lock(g_ports_mu);
    port_ = port;
    Ports()[port] = this;
  }
  if (!RaiseListenBacklog(port)) {
    spdlog::warn(
        "port {}: the listen backlog stays cpp-httplib's 5: bursts of clients may be "
        "dropped",
        port);
  }
}

ConnectionGuard* ConnectionGuard::ForPort(int local_port) {
  std::lock_guard<std::mutex> lock(g_ports_mu);
  auto it = Ports().find(local_port);
  return it == Ports().end() ? nullptr : it->second;
}

httplib::TaskQueue* ConnectionGuard::NewTaskQueue(size_t threads, size_t max_threads) {
  return new Queue(this, threads, max_threads);
}

uint64_t ConnectionGuard::Register(int fd, const std::string& address) {
  // A connection httplib accepted but never queued (it was stopping).
  if (t_accepted.guard == this) Release(t_accepted.id);
  Conn c;
  c.dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  c.address = address;
  c.since = Clock::now();
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
    if (c.dup_fd >= 0) conns_.emplace(id, std::move(c));
    if (limits_.max_per_address > 0) EvictOldestQueuedLocked(address, id);
  }
  t_accepted = Tag{this, id};
  return id;
}

void ConnectionGuard::EvictOldestQueuedLocked(const std::string& address, uint64_t keep) {
  int queued = 0;
  Conn* oldest = nullptr;
  for (auto& [id, c] : conns_) {  // Oldest first.
    if (c.address != address || c.phase != Phase::kQueued || c.shut) continue;
    ++queued;
    if (oldest == nullptr && id != keep) oldest = &c;
  }
  if (queued > kMaxQueuedPerAddress && oldest != nullptr) {
    ShutDownLocked(*oldest);
    ++stats_.evicted;
  }
}

void ConnectionGuard::ShutDownLocked(Conn& c) {
  // The pool thread's read fails at once; httplib closes its descriptor and
  // the task releases ours.
  shutdown(c.dup_fd, SHUT_RDWR);
  c.shut = true;
}

void ConnectionGuard::SetPhase(uint64_t id, Phase phase) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  it->second.phase = phase;
  it->second.since = Clock::now();
}

void ConnectionGuard::Release(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  close(it->second.dup_fd);
  conns_.erase(it);
}

void ConnectionGuard::MarkHandling() {
  if (t_current.guard != nullptr) t_current.guard->SetPhase(t_current.id, Phase::kHandling);
}

void ConnectionGuard::MarkWaiting() {
  if (t_current.guard != nullptr) t_current.guard->SetPhase(t_current.id, Phase::kReading);
}

ConnectionGuard::Stats ConnectionGuard::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  for (const auto& [id, c] : conns_) {
    s.waiting += c.phase != Phase::kHandling && !c.shut;
    s.reading += c.phase == Phase::kReading && !c.shut;
  }
  return s;
}

void ConnectionGuard::WatchdogLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    stop_cv_.wait_for(lock, kWatchdogTick);
    const auto now = Clock::now();
    // Readers of one address past its share, oldest first, once they have
    // read for longer than a request takes to arrive: a burst of requests
    // is read and handled before that.
    std::map<std::string, int> readers;
    for (auto& [id, c] : conns_) {
      if (c.phase == Phase::kReading && !c.shut) ++readers[c.address];
    }
    for (auto& [id, c] : conns_) {
      if (c.phase != Phase::kReading || c.shut) continue;
      int& n = readers[c.address];
      if (limits_.max_per_address > 0 && n > limits_.max_per_address &&
          now - c.since >= limits_.slow_read_grace) {
        ShutDownLocked(c);
        ++stats_.evicted;
        --n;
      } else if (limits_.read_timeout.count() > 0 && now - c.since > limits_.read_timeout) {
        ShutDownLocked(c);
        ++stats_.timed_out;
      }
    }
  }
}

}  // namespace coderunner::api
