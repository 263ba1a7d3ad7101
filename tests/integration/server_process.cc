#include "server_process.h"

#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "coderunner/common/ids.h"
#include "coderunner/common/sha256.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/curl_transport.h"
#include "coderunner/engine/volumes.h"
#include "coderunner/isolation/container_policy.h"

extern char** environ;

namespace coderunner::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

HttpAnswer Answer(const httplib::Result& r) {
  HttpAnswer a;
  if (!r) {
    a.body = "request failed: " + httplib::to_string(r.error());
    return a;
  }
  a.status = r->status;
  a.body = r->body;
  a.json = nlohmann::json::parse(a.body, nullptr, false);
  if (a.json.is_discarded()) a.json = nullptr;
  for (const auto& [name, value] : r->headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    a.headers[lower] = value;
  }
  return a;
}

// Test servers' job uids: past the default range (sandbox.uid_first
// 2100000000, uid_count 65536), which a service run outside the tests may
// use, and above the native and browser tests' own regions (below
// 2000000000: tests/integration/native_test.cc, tests/browser/processes.py).
// Each test process owns a slot of kServersPerSlot ranges of kUidsPerServer
// uids: 4 Mi uids in all, ending below config::kHighestJobUid. A job's uid
// therefore still starts with "21".
constexpr int64_t kTestUidBase = 2100000000 + 65536;
constexpr int64_t kUidsPerServer = 512;
constexpr int kServersPerSlot = 8;
constexpr int kUidSlots = 1024;
constexpr char kUidSlotDir[] = "/tmp/coderunner-test-uid-slots";

// This process's slot: the lowest n whose lock file it could take. The lock
// (flock) is held until the process exits (its descriptor is never closed),
// so no two live test processes, of either engine or any suite, share a
// slot, whatever their pids. Slot 0, with a warning, if none is free.
int UidSlot() {
  static const int slot = [] {
    mkdir(kUidSlotDir, 0777);
    for (int n = 0; n < kUidSlots; ++n) {
      std::string path = std::string(kUidSlotDir) + "/" + std::to_string(n);
      int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
      if (fd < 0) continue;
      if (flock(fd, LOCK_EX | LOCK_NB) == 0) return n;
      close(fd);
    }
    std::fprintf(stderr, "ServerProcess: no free uid slot in %s: servers may share uids\n",
                 kUidSlotDir);
    return 0;
  }();
  return slot;
}

struct TestUidRange {
  int64_t first;
  int64_t count;
};

// The next server's range in this process's slot. The slot's ranges are
// reused in turn: a process never has kServersPerSlot servers at once.
TestUidRange NextTestUidRange() {
  static std::atomic<int> next{0};
  const int64_t index = next++ % kServersPerSlot;
  return {kTestUidBase + (UidSlot() * kServersPerSlot + index) * kUidsPerServer, kUidsPerServer};
}

}  // namespace

std::string EngineSocketUnderTest() {
  const char* s = std::getenv("CODERUNNER_TEST_ENGINE_SOCKET");
  return s ? s : "";
}

std::string RuntimeUnderTest() {
  const char* s = std::getenv("CODERUNNER_TEST_RUNTIME");
  return s ? s : "";
}

std::string ServiceBinary() {
  const char* s = std::getenv("CODERUNNER_TEST_SANITIZED_SERVICE");
  return s != nullptr && *s != '\0' ? s : CODERUNNER_BINARY;
}

bool ServiceIsSanitized() { return ServiceBinary() != CODERUNNER_BINARY; }

bool Eventually(const std::function<bool()>& done, std::chrono::seconds budget) {
  for (auto until = std::chrono::steady_clock::now() + budget;
       std::chrono::steady_clock::now() < until;) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

std::string HostileProgram(const std::string& name) {
  return ReadFile(std::string(CODERUNNER_HOSTILE_DIR) + "/" + name);
}

int CountVolumes(const std::string& socket, const std::string& instance) {
  engine::CurlTransport transport(socket);
  engine::VolumeClient volumes(transport, std::chrono::seconds(30));
  auto list = volumes.List({{isolation::kLabelInstance, instance}});
  return list.ok() ? static_cast<int>(list->size()) : -1;
}

int CountContainers(const std::string& socket, const std::string& instance,
                    const std::string& except_pool) {
  engine::CurlTransport transport(socket);
  engine::ContainerClient containers(transport, std::chrono::seconds(30));
  auto list = containers.List({{isolation::kLabelInstance, instance}});
  if (!list.ok()) return -1;
  int n = 0;
  for (const auto& c : *list) {
    auto pool = c.labels.find(isolation::kLabelPool);
    if (!except_pool.empty() && pool != c.labels.end() && pool->second == except_pool) continue;
    ++n;
  }
  return n;
}

std::string ApiKeysYaml(const std::vector<TestKey>& keys) {
  std::string yaml = "auth:\n  mode: api_keys\n  keys:\n";
  for (const auto& k : keys) {
    yaml += std::string("    - {tenant: ") + k.tenant + ", tier: " + k.tier + ", key_sha256: \"" +
            Sha256Hex(k.key) + "\"}\n";
  }
  return yaml;
}

int CountLabelled(const std::string& socket, const std::map<std::string, std::string>& labels) {
  engine::CurlTransport transport(socket);
  engine::ContainerClient containers(transport, std::chrono::seconds(30));
  auto list = containers.List(labels);
  return list.ok() ? static_cast<int>(list->size()) : -1;
}

ServerProcess::ServerProcess(const std::string& extra_yaml, const std::string& socket,
                             const std::map<std::string, std::string>& env)
    : extra_yaml_(extra_yaml), env_(env) {
  char tmpl[] = "/tmp/coderunner-it-XXXXXX";
  dir_ = mkdtemp(tmpl);
  instance_ = NewId("it");
  workspace_dir_ = dir_ + "/workspaces";
  socket_ = socket.empty() ? EngineSocketUnderTest() : socket;
  TestUidRange range = NextTestUidRange();
  uid_first_ = range.first;
  uid_count_ = range.count;
  Spawn();
}

ServerProcess::ServerProcess(ServerProcess& previous)
    : dir_(previous.dir_),
      instance_(previous.instance_),
      workspace_dir_(previous.workspace_dir_),
      socket_(previous.socket_),
      uid_first_(previous.uid_first_),
      uid_count_(previous.uid_count_),
      extra_yaml_(previous.extra_yaml_),
      env_(previous.env_),
      generation_(previous.generation_ + 1) {
  previous.owns_dir_ = false;
  std::error_code ec;
  std::filesystem::rename(dir_ + "/server.log",
                          dir_ + "/server.log." + std::to_string(previous.generation_), ec);
  Spawn();
}

// Takes a test's own one-line `<name>: {...}` section out of `extra_yaml`
// into `theirs` (what is between the braces; "" if the test has none).
// False if the test's section is not a one-line flow mapping.
bool TakeFlowSection(std::string& extra_yaml, const std::string& name, std::string* theirs) {
  theirs->clear();
  std::istringstream in(extra_yaml);
  std::string line;
  std::string rest;
  bool ok = true;
  while (std::getline(in, line)) {
    if (line.rfind(name + ":", 0) == 0) {
      size_t open = line.find('{');
      size_t close = line.rfind('}');
      if (open == std::string::npos || close == std::string::npos || close < open) ok = false;
      if (ok) *theirs = line.substr(open + 1, close - open - 1);
    } else {
      rest += line + "\n";
    }
  }
  extra_yaml = rest;
  return ok;
}

// The generated config's one `<name>:` section: `defaults` (key, value),
// and a test's own one-line `<name>: {...}` from `extra_yaml` merged in,
// its keys winning. A second `<name>:` key would not be an error: YAML
// readers silently keep one of them. Removes the test's line from
// `extra_yaml`. "" if the test's section is not a one-line flow mapping
// (then the caller fails the start).
std::string MergedSection(std::string& extra_yaml, const std::string& name,
                          const std::vector<std::pair<std::string, std::string>>& defaults) {
  std::string theirs;
  if (!TakeFlowSection(extra_yaml, name, &theirs)) return "";
  std::string section = name + ": {";
  for (const auto& [key, value] : defaults) {
    if (theirs.find(key + ":") == std::string::npos) section += key + ": " + value + ", ";
  }
  section += theirs + "}\n";
  return section;
}

// The generated config's `sandbox:` section: init_path, the server's uid
// range, no sandboxes launched ahead (each would be a container most tests
// never use; SandboxPoolTest brings its own), and the runtime under test
// (CODERUNNER_TEST_RUNTIME) if any (MergedSection).
std::string SandboxSection(std::string& extra_yaml, int64_t uid_first, int64_t uid_count) {
  std::vector<std::pair<std::string, std::string>> defaults = {
      {"init_path", CODERUNNER_INIT_BINARY},
      {"uid_first", std::to_string(uid_first)},
      {"uid_count", std::to_string(uid_count)},
      {"ready_sandboxes", "0"}};
  if (!RuntimeUnderTest().empty()) defaults.emplace_back("runtime", RuntimeUnderTest());
  return MergedSection(extra_yaml, "sandbox", defaults);
}

// The warm pool of a test server that names none.
constexpr char kTestPool[] = "pool: {size: 0, sizes: {python: 1}}\n";

void ServerProcess::Spawn() {
  std::string config = dir_ + "/config.yaml";
  std::string extra = extra_yaml_;
  std::string sandbox = SandboxSection(extra, uid_first_, uid_count_);
  // Artifacts stay in this server's directory unless the test says where.
  std::string artifacts = MergedSection(extra, "artifacts", {{"dir", dir_ + "/artifacts"}});
  if (sandbox.empty() || artifacts.empty()) {
    // Not started (started() is false); log() says why.
    std::ofstream(dir_ + "/server.log") << "ServerProcess: a sandbox: or artifacts: section in "
                                           "extra_yaml must be one line in flow style\n";
    return;
  }
  {
    std::ofstream out(config);
    // A test's own server: section must listen on 127.0.0.1:0 itself.
    out << (extra_yaml_.find("server:") == std::string::npos ? "server: {listen: 127.0.0.1:0}\n"
                                                             : "")
        << "engine: {socket: " << socket_ << "}\n"
        << sandbox << artifacts << "workspace_dir: " << workspace_dir_ << "\n"
        << (extra_yaml_.find("volumes:") == std::string::npos
                ? "volumes: {dir: " + dir_ + "/volumes}\n"
                : "")
        << (extra_yaml_.find("data_dir:") == std::string::npos ? "data_dir: " + dir_ + "/data\n"
                                                               : "")
        << "instance: " << instance_
        << "\n"
        // Tests that exercise authentication bring their own auth section.
        << (extra.find("auth:") == std::string::npos ? "auth: {mode: none}\n" : "")
        // One warm python container, not the default two per language:
        // each is a container the engine creates, starts and removes,
        // most never used. Other shapes run cold, or join the pool as they
        // miss. The pool's own tests bring their own section.
        << (extra.find("pool:") == std::string::npos ? std::string(kTestPool) : "") << extra;
  }
  std::string log_path = dir_ + "/server.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  for (const auto& [k, v] : env_) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string binary = ServiceBinary();
  std::vector<std::string> args = {binary, "serve", "--config", config};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv.data(), envp.data()) != 0) {
    pid_ = -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  if (pid_ < 0) return;
  // Wait for the "(port N)" line; startup includes the janitor sweep.
  std::regex port_re(R"(\(port (\d+)\))");
  for (int i = 0; i < 1500 && port_ == 0; ++i) {
    std::string text = ReadFile(log_path);
    std::smatch m;
    if (std::regex_search(text, m, port_re)) port_ = std::stoi(m[1]);
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      if (WIFEXITED(status)) startup_exit_code_ = WEXITSTATUS(status);
      break;
    }
    if (port_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    for (int i = 0; i < 250; ++i) {
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (owns_dir_) {
    // The service makes these nosuid,nodev bind mounts of themselves
    // (isolation/host_mount.h); the mounts outlive it.
    for (const std::string& d : {artifacts_dir(), volumes_dir()}) umount2(d.c_str(), MNT_DETACH);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

bool ServerProcess::Stop(std::chrono::seconds timeout) {
  if (pid_ <= 0) return false;
  kill(pid_, SIGTERM);
  for (auto until = std::chrono::steady_clock::now() + timeout;
       std::chrono::steady_clock::now() < until;) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Kill9();
  return false;
}

std::string ServerProcess::PoolToken() const {
  const std::string& text = log();
  std::string key = "warm pool ";
  size_t at = text.rfind(key);
  if (at == std::string::npos) return "";
  at += key.size();
  size_t end = text.find(':', at);
  return end == std::string::npos ? "" : text.substr(at, end - at);
}

void ServerProcess::Kill9() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

const std::string& ServerProcess::log() const {
  log_ = ReadFile(dir_ + "/server.log");
  return log_;
}

HttpAnswer ServerProcess::Get(const std::string& path) const {
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(120, 0);
  return Answer(c.Get(path.c_str()));
}

HttpAnswer ServerProcess::Call(const std::string& method, const std::string& path,
                               const std::string& key, const std::string& body) const {
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(120, 0);
  httplib::Headers h;
  if (!key.empty()) h.emplace("Authorization", "Bearer " + key);
  if (method == "GET") return Answer(c.Get(path.c_str(), h));
  if (method == "DELETE") {
    if (body.empty()) return Answer(c.Delete(path.c_str(), h));
    return Answer(c.Delete(path.c_str(), h, body, "application/json"));
  }
  return Answer(c.Post(path.c_str(), h, body, "application/json"));
}

HttpAnswer ServerProcess::Delete(const std::string& path) const {
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(120, 0);
  return Answer(c.Delete(path.c_str()));
}

int ServerProcess::StreamLines(const std::string& path, const LineHandler& on_line,
                               std::chrono::seconds timeout) const {
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(timeout.count(), 0);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string pending;
  bool stopped = false;
  int status = 0;
  auto r = c.Get(
      path.c_str(), httplib::Headers{},
      [&](const httplib::Response& res) {
        status = res.status;
        return true;
      },
      [&](const char* data, size_t n) {
        auto now = std::chrono::steady_clock::now();
        pending.append(data, n);
        size_t nl;
        while ((nl = pending.find('\n')) != std::string::npos) {
          std::string line = pending.substr(0, nl);
          pending.erase(0, nl + 1);
          if (!on_line(line, now)) {
            stopped = true;
            return false;
          }
        }
        return now < deadline;
      });
  if (!stopped && !pending.empty()) on_line(pending, std::chrono::steady_clock::now());
  return r ? r->status : status;
}

HttpAnswer ServerProcess::Post(const std::string& path, const std::string& body,
                               const std::string& content_type) const {
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(120, 0);
  return Answer(c.Post(path.c_str(), body, content_type.c_str()));
}

HttpAnswer ServerProcess::Execute(const std::string& language, const std::string& code,
                                  const nlohmann::json& extra) const {
  nlohmann::json body = extra;
  body["language"] = language;
  body["code"] = code;
  return Post("/v1/execute", body.dump());
}

namespace {

// A "<field>: <n> kB" line of /proc/<pid>/status, bytes; -1 if absent.
long StatusKilobytes(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1)) * 1024;
  }
  return -1;
}

}  // namespace

long ServerProcess::RssBytes() const { return StatusKilobytes(pid_, "VmRSS"); }

bool ServerProcess::ResetPeakRss() const {
  // "5" resets the peak RSS to the current RSS (proc(5), clear_refs).
  std::ofstream out("/proc/" + std::to_string(pid_) + "/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

long ServerProcess::PeakRssBytes() const { return StatusKilobytes(pid_, "VmHWM"); }

}  // namespace coderunner::testing
