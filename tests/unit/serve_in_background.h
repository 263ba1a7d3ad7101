// ServeInBackground: an httplib server's accept loop on a thread of its
// own, for tests.
#ifndef CODERUNNER_TESTS_UNIT_SERVE_IN_BACKGROUND_H_
#define CODERUNNER_TESTS_UNIT_SERVE_IN_BACKGROUND_H_

#include <httplib.h>

#include <chrono>
#include <thread>

namespace coderunner::testutil {

// Runs `server`'s accept loop (bound already: bind_to_any_port) on a new
// thread and returns it once the loop runs. httplib's stop() does nothing
// before that, so a test that ended quickly stopped a server that then
// started listening, and joining its thread hung the test until its
// timeout (seen under ASan).
inline std::thread ServeInBackground(httplib::Server& server) {
  std::thread thread([&server] { server.listen_after_bind(); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!server.is_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return thread;
}

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_SERVE_IN_BACKGROUND_H_
