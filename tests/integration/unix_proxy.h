// UnixProxy: a Unix-socket proxy the tests put in front of an engine's
// socket, to take the engine away or make it stall.
#ifndef CODERUNNER_TESTS_INTEGRATION_UNIX_PROXY_H_
#define CODERUNNER_TESTS_INTEGRATION_UNIX_PROXY_H_

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace coderunner::testing {

// A Unix-socket proxy in front of the engine socket: Stop() makes the engine
// vanish (listener closed and unlinked, live connections cut); Start() brings
// it back on the same path. Freeze() makes it stall as a stopped engine
// (SIGSTOP) does: connections are still accepted, and nothing is forwarded
// either way until Thaw().
class UnixProxy {
 public:
  UnixProxy(std::string path, std::string target)
      : path_(std::move(path)), target_(std::move(target)) {}
  ~UnixProxy() { Stop(); }

  bool Start() {
    if (running_) return true;
    ::unlink(path_.c_str());
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr = Address(path_);
    if (listen_fd_ < 0 ||
        ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(listen_fd_, 64) != 0 || ::pipe2(wake_, O_CLOEXEC) != 0) {
      if (listen_fd_ >= 0) ::close(listen_fd_);
      listen_fd_ = -1;
      return false;
    }
    running_ = true;
    acceptor_ = std::thread([this] { AcceptLoop(); });
    return true;
  }

  void Freeze() {
    std::lock_guard<std::mutex> lock(mu_);
    frozen_ = true;
  }
  void Thaw() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      frozen_ = false;
    }
    thawed_.notify_all();
  }

  void Stop() {
    if (!running_) return;
    Thaw();
    running_ = false;
    char c = 'x';
    (void)!::write(wake_[1], &c, 1);
    acceptor_.join();
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
    listen_fd_ = -1;
    ::unlink(path_.c_str());
    std::vector<std::thread> pumps;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int fd : live_) ::shutdown(fd, SHUT_RDWR);
      pumps.swap(pumps_);
    }
    for (auto& t : pumps) t.join();
  }

  const std::string& path() const { return path_; }

 private:
  static sockaddr_un Address(const std::string& path) {
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path.c_str());
    return addr;
  }

  void AcceptLoop() {
    for (;;) {
      pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) continue;
      if (fds[1].revents != 0) return;
      if ((fds[0].revents & POLLIN) == 0) continue;
      int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      int upstream = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_un addr = Address(target_);
      if (upstream < 0 ||
          ::connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
        if (upstream >= 0) ::close(upstream);
        ::close(client);
        continue;
      }
      std::lock_guard<std::mutex> lock(mu_);
      live_.insert(client);
      live_.insert(upstream);
      pumps_.emplace_back([this, client, upstream] { Pump(client, upstream); });
    }
  }

  // Copies both ways, passing half-closes on, until both directions end.
  void Pump(int a, int b) {
    bool open[2] = {true, true};  // a->b, b->a
    char buf[65536];
    while (open[0] || open[1]) {
      // A direction that ended is left out (a negative fd is ignored).
      pollfd fds[2] = {{open[0] ? a : -1, POLLIN, 0}, {open[1] ? b : -1, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) break;
      {
        std::unique_lock<std::mutex> lock(mu_);
        thawed_.wait(lock, [&] { return !frozen_; });
      }
      for (int i = 0; i < 2; ++i) {
        if (!open[i] || fds[i].revents == 0) continue;
        int from = i == 0 ? a : b;
        int to = i == 0 ? b : a;
        ssize_t n = ::read(from, buf, sizeof(buf));
        bool ok = n > 0;
        for (ssize_t off = 0; ok && off < n;) {
          ssize_t w = ::send(to, buf + off, static_cast<size_t>(n - off), MSG_NOSIGNAL);
          if (w <= 0) ok = false;
          off += w;
        }
        if (n == 0) {  // EOF: pass the half-close on.
          open[i] = false;
          ::shutdown(to, SHUT_WR);
        } else if (!ok) {  // An error either side: give up both ways.
          open[0] = open[1] = false;
        }
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(a);
    live_.erase(b);
    ::close(a);
    ::close(b);
  }

  std::string path_;
  std::string target_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  bool running_ = false;
  std::thread acceptor_;
  std::mutex mu_;
  std::condition_variable thawed_;
  bool frozen_ = false;
  std::set<int> live_;
  std::vector<std::thread> pumps_;
};

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_UNIX_PROXY_H_
