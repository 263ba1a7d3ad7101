// PackageGateway: the way a sandbox's `pip install` and `npm install` reach
// the service. Each running sandbox gets a Unix socket in its workspace
// (kGatewaySocket, /workspace/.coderunner-gateway inside), which only its
// own uid may connect to; the pip and npm shims of its workspace send one
// request line and read one answer line. The service installs outside the
// sandbox, under the tenant's policy (SandboxManager::AddPackages): the
// socket carries names, never bytes of a package or a byte of network.
// Private to src/sandboxes.
#ifndef CODERUNNER_SRC_SANDBOXES_PACKAGE_GATEWAY_H_
#define CODERUNNER_SRC_SANDBOXES_PACKAGE_GATEWAY_H_

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::sandboxes {

// The socket's name in a sandbox's workspace.
inline constexpr char kGatewaySocket[] = ".coderunner-gateway";
// Bounds on what a sandbox can make the gateway do: a request line's
// bytes, the time to send it, and the requests served at once across all
// sandboxes (one per sandbox: another is answered sandbox_busy).
inline constexpr size_t kMaxGatewayRequestBytes = 64 << 10;
inline constexpr int kGatewayReadTimeoutMs = 5000;
inline constexpr int kMaxGatewayServing = 4;

class PackageGateway {
 public:
  // What a request asks: `ecosystem` ("python", "npm") and the names, for
  // sandbox `id`. Answers {"ok": true, "packages": [...]} or {"ok": false,
  // "code", "message"}. Called on a worker thread; may block for an install.
  using Handler = std::function<nlohmann::json(const std::string& id, const std::string& ecosystem,
                                               const std::vector<std::string>& packages)>;

  explicit PackageGateway(Handler handler);
  ~PackageGateway();  // Closes every socket and waits for requests in service.
  PackageGateway(const PackageGateway&) = delete;
  PackageGateway& operator=(const PackageGateway&) = delete;

  // Listens for sandbox `id` at <workspace_dir>/kGatewaySocket (root's,
  // group `uid`, 0660; a stale one is replaced), taking connections from
  // `uid` only (SO_PEERCRED). Internal "sandbox_io" if it cannot.
  Status Open(const std::string& id, const std::string& workspace_dir, int64_t uid);
  // Stops listening for `id` (its socket file goes with its workspace).
  void Close(const std::string& id);

 private:
  struct Listener {
    int fd = -1;
    int64_t uid = -1;
  };
  void Loop();
  void Accept(const std::string& id, const Listener& listener);
  void Serve(std::string id, int fd);

  const Handler handler_;
  int wake_[2] = {-1, -1};  // Tells Loop the listeners changed, or to stop.
  std::mutex mu_;
  std::condition_variable idle_;
  std::map<std::string, Listener> listeners_;
  std::set<std::string> serving_;  // Sandboxes with a request in service.
  bool stopping_ = false;
  std::thread loop_;
};

// The answer line of a refused request: {"ok": false, "code", "message"}.
nlohmann::json GatewayRefusal(const Status& status);

// The request line a shim sends, read back: {"ecosystem": "python" | "npm",
// "packages": [string, ...]}. InvalidArgument "invalid_request" otherwise.
// Pure.
Status ParseGatewayRequest(std::string_view line, std::string* ecosystem,
                           std::vector<std::string>* packages);

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SRC_SANDBOXES_PACKAGE_GATEWAY_H_
