#include "package_gateway.h"

#include <fcntl.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "coderunner/common/bounded_json.h"
#include "coderunner/sandboxes/sandbox_manager.h"

namespace coderunner::sandboxes {
namespace {

using Clock = std::chrono::steady_clock;

// Connections waiting to be accepted per sandbox: its shims ask one at a
// time.
constexpr int kListenBacklog = 4;
// A request is one shallow object.
constexpr int kMaxRequestDepth = 4;

Status Io(const std::string& what) {
  return InternalError(what + ": " + strerror(errno), "sandbox_io");
}

// Writes `answer` and a newline, as far as the peer takes it in the time.
void Answer(int fd, const nlohmann::json& answer) {
  const std::string line = answer.dump() + "\n";
  size_t sent = 0;
  while (sent < line.size()) {
    ssize_t n = send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

// One line from `fd` (the newline dropped), read within the request's time
// and size: "" with `*ok` false past either.
std::string ReadLine(int fd, bool* ok) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(kGatewayReadTimeoutMs);
  std::string line;
  char buf[4096];
  *ok = false;
  while (line.size() <= kMaxGatewayRequestBytes) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0) return "";
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0) return "";
    if (n == 0) break;
    line.append(buf, static_cast<size_t>(n));
    if (size_t nl = line.find('\n'); nl != std::string::npos) {
      line.resize(nl);
      break;
    }
  }
  if (line.size() > kMaxGatewayRequestBytes) return "";
  *ok = true;
  return line;
}

}  // namespace

nlohmann::json GatewayRefusal(const Status& status) {
  return {{"ok", false}, {"code", status.reason()}, {"message", status.message()}};
}

Status ParseGatewayRequest(std::string_view line, std::string* ecosystem,
                           std::vector<std::string>* packages) {
  auto bad = [](const std::string& why) {
    return InvalidArgumentError("a gateway request " + why, "invalid_request");
  };
  auto parsed =
      ParseBoundedJson(line, {.max_depth = kMaxRequestDepth, .max_bytes = kMaxGatewayRequestBytes});
  if (!parsed.ok()) return bad("is not JSON: " + parsed.status().message());
  const nlohmann::json& j = *parsed;
  if (!j.is_object() || !j.contains("ecosystem") || !j["ecosystem"].is_string() ||
      !j.contains("packages") || !j["packages"].is_array()) {
    return bad("is {\"ecosystem\": string, \"packages\": [string]}");
  }
  packages->clear();
  for (const auto& p : j["packages"]) {
    if (!p.is_string()) return bad("names packages as strings");
    packages->push_back(p.get<std::string>());
  }
  *ecosystem = j["ecosystem"].get<std::string>();
  return OkStatus();
}

PackageGateway::PackageGateway(Handler handler) : handler_(std::move(handler)) {
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    spdlog::error("packages gateway: pipe: {}", strerror(errno));
    return;
  }
  loop_ = std::thread([this] { Loop(); });
}

PackageGateway::~PackageGateway() {
  {
    std::unique_lock lock(mu_);
    stopping_ = true;
  }
  if (wake_[1] >= 0) (void)!write(wake_[1], "x", 1);
  if (loop_.joinable()) loop_.join();
  std::unique_lock lock(mu_);
  idle_.wait(lock, [&] { return serving_.empty(); });
  for (auto& [id, l] : listeners_) close(l.fd);
  for (int fd : wake_) {
    if (fd >= 0) close(fd);
  }
}

Status PackageGateway::Open(const std::string& id, const std::string& workspace_dir, int64_t uid) {
  int dir = open(workspace_dir.c_str(), O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return Io("open " + workspace_dir);
  // Bound through the directory's descriptor: the path stays short
  // (sun_path holds 108 bytes) however deep the workspace is.
  (void)unlinkat(dir, kGatewaySocket, 0);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path, sizeof(addr.sun_path), "/proc/self/fd/%d/%s", dir, kGatewaySocket);
  Status st = OkStatus();
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      fchownat(dir, kGatewaySocket, 0, static_cast<gid_t>(uid), AT_SYMLINK_NOFOLLOW) != 0 ||
      fchmodat(dir, kGatewaySocket, 0660, 0) != 0 || listen(fd, kListenBacklog) != 0) {
    st = Io("gateway socket in " + workspace_dir);
  }
  close(dir);
  if (!st.ok()) {
    if (fd >= 0) close(fd);
    return st;
  }
  {
    std::lock_guard lock(mu_);
    if (auto it = listeners_.find(id); it != listeners_.end()) close(it->second.fd);
    listeners_[id] = {fd, uid};
  }
  (void)!write(wake_[1], "x", 1);
  return OkStatus();
}

void PackageGateway::Close(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = listeners_.find(id);
  if (it == listeners_.end()) return;
  close(it->second.fd);
  listeners_.erase(it);
  (void)!write(wake_[1], "x", 1);
}

void PackageGateway::Loop() {
  while (true) {
    std::vector<pollfd> fds = {{wake_[0], POLLIN, 0}};
    std::vector<std::pair<std::string, Listener>> order;
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      for (const auto& [id, l] : listeners_) {
        fds.push_back({l.fd, POLLIN, 0});
        order.emplace_back(id, l);
      }
    }
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
    if (fds[0].revents != 0) {
      char drain[64];
      while (read(wake_[0], drain, sizeof(drain)) > 0) {
      }
      continue;  // The listeners may have changed: poll them afresh.
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents & POLLIN) Accept(order[i - 1].first, order[i - 1].second);
    }
  }
}

void PackageGateway::Accept(const std::string& id, const Listener& listener) {
  {
    // Still this sandbox's listener: a Close since the poll may have let
    // another Open reuse the descriptor's number.
    std::lock_guard lock(mu_);
    auto it = listeners_.find(id);
    if (it == listeners_.end() || it->second.fd != listener.fd) return;
  }
  int fd = accept4(listener.fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  ucred peer{};
  socklen_t len = sizeof(peer);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0 ||
      static_cast<int64_t>(peer.uid) != listener.uid) {
    close(fd);  // Not the sandbox's own uid.
    return;
  }
  {
    std::lock_guard lock(mu_);
    if (!stopping_ && serving_.count(id) == 0 &&
        static_cast<int>(serving_.size()) < kMaxGatewayServing) {
      serving_.insert(id);
      std::thread([this, id, fd] { Serve(id, fd); }).detach();
      return;
    }
  }
  // Non-blocking: a fresh socket's buffer takes this line whole.
  fcntl(fd, F_SETFL, O_NONBLOCK);
  Answer(fd, GatewayRefusal(FailedPreconditionError(
                 "another install is under way; ask again when it ends", kReasonSandboxBusy)));
  close(fd);
}

void PackageGateway::Serve(std::string id, int fd) {
  // The answer is a line: a peer that does not read it is dropped in time.
  const timeval send_timeout{kGatewayReadTimeoutMs / 1000, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
  bool ok = false;
  const std::string line = ReadLine(fd, &ok);
  std::string ecosystem;
  std::vector<std::string> packages;
  Status parsed = ok ? ParseGatewayRequest(line, &ecosystem, &packages)
                     : InvalidArgumentError("a gateway request is one line of at most " +
                                                std::to_string(kMaxGatewayRequestBytes) +
                                                " bytes, sent within " +
                                                std::to_string(kGatewayReadTimeoutMs) + " ms",
                                            "invalid_request");
  const nlohmann::json answer =
      parsed.ok() ? handler_(id, ecosystem, packages) : GatewayRefusal(parsed);
  {
    // The sandbox's turn ends before its answer goes: a shim that asks
    // again as soon as it reads it is served, not told sandbox_busy.
    std::lock_guard lock(mu_);
    serving_.erase(id);
    idle_.notify_all();
  }
  Answer(fd, answer);  // Touches nothing of this gateway, which may be gone.
  close(fd);
}

}  // namespace coderunner::sandboxes
