// ConnectionGuard: keeps slow and idle clients from holding the HTTP
// threads.
//
// cpp-httplib 0.11 gives every connection one pool thread from accept to
// close, and bounds each read only (5 s between two bytes): a client that
// sends one header byte every few seconds holds its thread forever, and
// server.threads such clients make the service answer nobody, /healthz
// included, without ever authenticating. The guard bounds what a client
// can hold without a request being handled:
//   - read deadline: a thread reading a request (its head and body, or
//     waiting for the next one on a kept-alive connection) for longer than
//     `read_timeout` has its connection shut down, whatever trickles in;
//   - per address: at most `max_per_address` connections of one peer
//     address may hold a thread without a request being handled (reading
//     a request, or idle between two on a kept-alive connection) for
//     longer than `slow_read_grace`; past it, that address's oldest such
//     ones are shut down, so one address can never hold more than that many
//     threads outside of handlers for long. A burst of requests from one
//     address is read and handled within the grace, and connections
//     queued for a thread hold none: neither is closed (a harness's
//     thousand waiters queue and are served in turn; up to 4096 queued per
//     address, its oldest queued one going beyond). Connections whose
//     request is being handled (a long /wait, say) do not count either:
//     per-tenant limits bound those.
// Many addresses at once (a distributed flood) are beyond what one process
// can sort out; put a proxy with its own limits in front.
//
// How it sees connections: the process's accept() is hooked
// (accept_hook.cc) to register every connection accepted on a watched
// port, and the TaskQueue it makes for httplib ties each pool task to the
// connection accepted just before on the same (accept) thread. Handlers
// mark their thread's connection as handling (MarkHandling, done by
// RouteTable for every route) and the access logger marks it waiting again
// once the response is out (MarkWaiting). The guard keeps a duplicate
// descriptor of each connection, so shutting one down can never reach a
// descriptor number the process has reused meanwhile.
// Thread-safe.
#ifndef CODERUNNER_API_CONNECTION_GUARD_H_
#define CODERUNNER_API_CONNECTION_GUARD_H_

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace coderunner::api {

struct ConnectionLimits {
  // Longest a thread may spend reading one request (head and body) or
  // waiting for the next; config server.request_read_timeout_ms. 0: none.
  std::chrono::milliseconds read_timeout{30000};
  // Connections of one peer address holding a thread outside a handler;
  // config server.max_waiting_connections_per_address. 0: unbounded.
  int max_per_address = 16;
  // How long a connection may hold a thread outside a handler before it
  // counts against max_per_address.
  std::chrono::milliseconds slow_read_grace{250};
};

class ConnectionGuard {
 public:
  explicit ConnectionGuard(ConnectionLimits limits);
  // Stops watching (connections still open are released by their tasks).
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // Guards connections accepted on local TCP `port` from now on, and
  // raises its listener's backlog from cpp-httplib's 5 to 1024 (a burst of
  // parallel clients overflowed it). One port per guard; call once the
  // server is bound.
  void Watch(int port);

  // A task queue for httplib::Server::new_task_queue that keeps `threads`
  // threads and grows to `max_threads` while every one is busy
  // (elastic_pool.h); the caller (httplib) owns it.
  httplib::TaskQueue* NewTaskQueue(size_t threads, size_t max_threads);

  // On a pool thread: its connection's request has been read and is being
  // handled (the read deadline and per-address count no longer apply), or
  // the response is out and the connection waits for the next request.
  // No-ops on any other thread.
  static void MarkHandling();
  static void MarkWaiting();

  struct Stats {
    uint64_t timed_out = 0;  // Shut down past the read deadline.
    uint64_t evicted = 0;    // Shut down for a newer one of the same address.
    int waiting = 0;         // Connections not being handled now.
    int reading = 0;         // Of them, those a thread reads for now.
  };
  Stats GetStats() const;

  // The accept hook: the guard watching `local_port`, or nullptr.
  static ConnectionGuard* ForPort(int local_port);
  // Registers connection `fd` from `address` (accept hook only); its id, and
  // remembers it as the accepting thread's latest.
  uint64_t Register(int fd, const std::string& address);

 private:
  class Queue;
  enum class Phase { kQueued, kReading, kHandling };
  struct Conn {
    int dup_fd = -1;  // Ours: shut down, never reused while we hold it.
    std::string address;
    Phase phase = Phase::kQueued;
    bool shut = false;  // Shut down by us; on its way out.
    std::chrono::steady_clock::time_point since;
  };

  void SetPhase(uint64_t id, Phase phase);
  void Release(uint64_t id);
  void ShutDownLocked(Conn& c);
  // Shuts down the oldest connection of `address` queued for a thread
  // (never `keep`) if it has more than 4096 queued.
  void EvictOldestQueuedLocked(const std::string& address, uint64_t keep);
  void WatchdogLoop();

  const ConnectionLimits limits_;
  int port_ = -1;
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Conn> conns_;  // Ordered by id: oldest first.
  Stats stats_;
  std::thread watchdog_;
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_CONNECTION_GUARD_H_
