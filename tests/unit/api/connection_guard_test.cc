// ConnectionGuard on socketpairs (no network): per-address eviction of the
// oldest waiting connection, the read deadline of a pool thread's
// connection, and handling connections left alone.
#include "coderunner/api/connection_guard.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <future>
#include <thread>
#include <vector>

namespace coderunner::api {
namespace {

using namespace std::chrono_literals;

// A connected pair: [0] is "the server's" descriptor, [1] the client's.
struct Pair {
  int fd[2] = {-1, -1};
  Pair() { socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd); }
  ~Pair() {
    close(fd[0]);
    close(fd[1]);
  }
  // Whether the server side was shut down: the client reads EOF.
  bool ShutDown() const {
    char c;
    return recv(fd[1], &c, 1, MSG_DONTWAIT) == 0;
  }
};

// Each connection's task reads until its connection ends, as httplib's
// does for a request head from a client that never sends one.
std::function<void()> ReadUntilEnd(int fd) {
  return [fd] {
    char buf[16];
    while (recv(fd, buf, sizeof(buf), 0) > 0) {
    }
  };
}

TEST(ConnectionGuardTest, OneAddressHoldsAtMostItsShareOfReadingThreads) {
  struct Case {
    int max_per_address;
    int connections;
    int evicted;  // The oldest ones.
  };
  for (const Case& c : std::vector<Case>{{2, 5, 3}, {2, 2, 0}, {0, 6, 0}, {1, 3, 2}}) {
    SCOPED_TRACE(std::to_string(c.max_per_address) + "/" + std::to_string(c.connections));
    ConnectionGuard guard({0ms, c.max_per_address, 0ms});
    // A thread per connection: each one reads.
    std::unique_ptr<httplib::TaskQueue> queue(
        guard.NewTaskQueue(c.connections + 1, c.connections + 1));
    std::vector<std::unique_ptr<Pair>> pairs;
    Pair other;  // Another address: never counted with them.
    guard.Register(other.fd[0], "10.0.0.2");
    queue->enqueue(ReadUntilEnd(other.fd[0]));
    for (int i = 0; i < c.connections; ++i) {
      pairs.push_back(std::make_unique<Pair>());
      guard.Register(pairs.back()->fd[0], "10.0.0.1");
      queue->enqueue(ReadUntilEnd(pairs.back()->fd[0]));  // As httplib does after accept.
      // The next one starts reading only once this one does (their order):
      // it reads, or has evicted another reader.
      auto started = [&] {
        ConnectionGuard::Stats s = guard.GetStats();
        return s.reading + static_cast<int>(s.evicted) == i + 2;
      };
      while (!started()) std::this_thread::yield();
    }
    // The watchdog's next tick evicts.
    for (int i = 0; i < 500 && guard.GetStats().evicted < static_cast<uint64_t>(c.evicted); ++i) {
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(guard.GetStats().evicted, static_cast<uint64_t>(c.evicted));
    for (int i = 0; i < c.connections; ++i) {
      EXPECT_EQ(pairs[i]->ShutDown(), i < c.evicted) << "connection " << i;  // Oldest first.
    }
    EXPECT_FALSE(other.ShutDown());
    for (auto& p : pairs) shutdown(p->fd[1], SHUT_WR);
    shutdown(other.fd[1], SHUT_WR);
    queue->shutdown();
  }
}

// Issue 30: a harness's waiting connections from one address were closed
// while they sat queued for a thread. Queued, they hold no thread: none is
// closed, however many.
TEST(ConnectionGuardTest, ConnectionsQueuedForAThreadAreNeverClosed) {
  ConnectionGuard guard({0ms, 2, 0ms});
  // No threads: every connection stays queued, as when all are busy.
  std::unique_ptr<httplib::TaskQueue> queue(guard.NewTaskQueue(0, 0));
  std::vector<std::unique_ptr<Pair>> pairs;
  for (int i = 0; i < 100; ++i) {
    pairs.push_back(std::make_unique<Pair>());
    guard.Register(pairs.back()->fd[0], "10.0.0.1");
    queue->enqueue([] {});
  }
  std::this_thread::sleep_for(500ms);  // Two watchdog ticks.
  EXPECT_EQ(guard.GetStats().evicted, 0u);
  for (const auto& p : pairs) EXPECT_FALSE(p->ShutDown());
  queue->shutdown();
}

TEST(ConnectionGuardTest, APoolThreadStillReadingPastTheDeadlineLosesItsConnection) {
  ConnectionGuard guard({300ms, 0});
  std::unique_ptr<httplib::TaskQueue> queue(guard.NewTaskQueue(2, 2));
  Pair slow, handled;
  std::promise<bool> slow_ended, handled_ended;
  // The task reads until EOF, as httplib's does for a request head.
  auto task = [](int fd, bool handling, std::promise<bool>* ended) {
    return [fd, handling, ended] {
      if (handling) ConnectionGuard::MarkHandling();
      char buf[16];
      ssize_t n;
      while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
      }
      ended->set_value(n == 0);
    };
  };
  guard.Register(slow.fd[0], "10.0.0.1");
  queue->enqueue(task(slow.fd[0], false, &slow_ended));
  guard.Register(handled.fd[0], "10.0.0.1");
  queue->enqueue(task(handled.fd[0], true, &handled_ended));
  auto slow_result = slow_ended.get_future();
  ASSERT_EQ(slow_result.wait_for(30s), std::future_status::ready);
  EXPECT_TRUE(slow_result.get());
  EXPECT_GE(guard.GetStats().timed_out, 1u);
  // The handled connection is not cut: end it ourselves.
  auto handled_result = handled_ended.get_future();
  EXPECT_EQ(handled_result.wait_for(1s), std::future_status::timeout);
  shutdown(handled.fd[1], SHUT_WR);
  ASSERT_EQ(handled_result.wait_for(30s), std::future_status::ready);
  queue->shutdown();
}

}  // namespace
}  // namespace coderunner::api
