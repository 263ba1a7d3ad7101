// HookServer: a webhook receiver for tests, an HTTP server on 127.0.0.1
// and a free port that records every POST to /hook; BlackHole: one whose
// requests hang until released.
#ifndef CODERUNNER_TESTS_UNIT_JOBS_HOOK_SERVER_H_
#define CODERUNNER_TESTS_UNIT_JOBS_HOOK_SERVER_H_

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "unit/serve_in_background.h"

namespace coderunner::testutil {

// An HTTP server on 127.0.0.1 and a free port. Every POST to /hook is
// recorded and answered with the status `status_for(n)` gives for the n-th
// request (1-based).
class HookServer {
 public:
  struct Request {
    std::string body;
    std::string content_type;
    std::string signature;  // X-Coderunner-Signature.
  };

  explicit HookServer(std::function<int(int)> status_for = [](int) { return 200; })
      : status_for_(std::move(status_for)) {
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      int n;
      {
        std::lock_guard lock(mu_);
        requests_.push_back({req.body, req.get_header_value("Content-Type"),
                             req.get_header_value("X-Coderunner-Signature")});
        n = static_cast<int>(requests_.size());
      }
      cv_.notify_all();
      if (on_request_) on_request_();
      res.status = status_for_(n);
      res.set_content("{}", "application/json");
    });
    server_.Post("/redirect", [this](const httplib::Request&, httplib::Response& res) {
      ++redirects_;
      res.set_redirect("/hook", 302);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = testutil::ServeInBackground(server_);
  }

  ~HookServer() {
    server_.stop();
    thread_.join();
  }

  // Runs in the handler, before it answers. Set before any request arrives.
  void OnRequest(std::function<void()> f) { on_request_ = std::move(f); }

  std::string Url(const std::string& path = "/hook") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  std::vector<Request> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  int redirects() const { return redirects_; }

  // Waits until `n` requests have arrived; false after `bound`.
  bool WaitForRequests(size_t n, std::chrono::milliseconds bound = std::chrono::seconds(5)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, bound, [&] { return requests_.size() >= n; });
  }

 private:
  httplib::Server server_;
  std::function<int(int)> status_for_;
  std::function<void()> on_request_;
  int port_ = -1;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Request> requests_;
  std::atomic<int> redirects_{0};
};

// A receiver whose requests block in the handler until Release().
class BlackHole {
 public:
  BlackHole() : server_() {
    server_.OnRequest([this] {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, std::chrono::seconds(30), [&] { return released_; });
    });
  }
  ~BlackHole() { Release(); }
  void Release() {
    {
      std::lock_guard lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
  }
  HookServer& server() { return server_; }

 private:
  // Declared before the server, whose handler threads use them.
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  HookServer server_;
};

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_JOBS_HOOK_SERVER_H_
