// ServerProcess: a real `coderunner serve` child process for integration
// tests, configured against the engine named by CODERUNNER_TEST_ENGINE_SOCKET.
#ifndef CODERUNNER_TESTS_INTEGRATION_SERVER_PROCESS_H_
#define CODERUNNER_TESTS_INTEGRATION_SERVER_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace coderunner::testing {

struct HttpAnswer {
  int status = 0;
  std::string body;
  nlohmann::json json;                         // Parsed body (null if not JSON).
  std::map<std::string, std::string> headers;  // Names lower-cased.
};

// Starts the server on a free port with a fresh workspace dir and a unique
// instance name, and stops it (SIGTERM, then SIGKILL) on destruction.
// Not thread-safe.
class ServerProcess {
 public:
  // `extra_yaml` is appended to the generated config; a `sandbox:` or
  // `artifacts:` section in it must be one line in flow style (`sandbox:
  // {key: value, ...}`) and is merged into the generated one (the server
  // does not start otherwise).
  // `socket` overrides
  // the engine socket (e.g. a path with nothing behind it). `env` adds
  // variables to the server's environment.
  explicit ServerProcess(const std::string& extra_yaml = "", const std::string& socket = "",
                         const std::map<std::string, std::string>& env = {});
  // Restarts `previous` (which must have been stopped, e.g. by Kill9): same
  // config, data dir, workspace dir, instance, engine socket and
  // environment, on a new port. Takes over the directory, which `previous`
  // then no longer removes. The previous log is kept as server.log.<n>.
  explicit ServerProcess(ServerProcess& previous);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  bool started() const { return port_ > 0; }
  // The exit status (WEXITSTATUS) if the process exited before it
  // listened (a startup failure); -1 otherwise.
  int startup_exit_code() const { return startup_exit_code_; }
  const std::string& log() const;  // Whatever the server printed so far.
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& instance() const { return instance_; }
  const std::string& workspace_dir() const { return workspace_dir_; }
  // Where the generated config puts artifacts and volumes (unless the
  // test's extra YAML sets artifacts.dir or a volumes: section).
  std::string artifacts_dir() const { return dir_ + "/artifacts"; }
  // The generated config's data_dir (jobs.db, webhook_secret).
  std::string data_dir() const { return dir_ + "/data"; }
  std::string volumes_dir() const { return dir_ + "/volumes"; }
  const std::string& socket() const { return socket_; }
  // The host uids its jobs, warm containers, sandboxes and volumes get
  // (sandbox.uid_first, uid_count): a range no other live server of any
  // test process gets (server_process.cc: NextTestUidRange), kept across a
  // restart. A test's own sandbox section may set other values; these then
  // do not apply.
  int64_t uid_first() const { return uid_first_; }
  int64_t uid_count() const { return uid_count_; }
  bool IsJobUid(int64_t uid) const { return uid >= uid_first_ && uid < uid_first_ + uid_count_; }

  // SIGKILL, no cleanup of any kind (a crash): containers, workspaces and
  // the database stay as they are.
  void Kill9();
  // SIGTERM, then waits up to `timeout` for a clean exit (SIGKILL after).
  // True if it exited on its own with status 0.
  bool Stop(std::chrono::seconds timeout = std::chrono::seconds(60));
  // The warm pool's token (label io.coderunner.pool of its containers), read
  // from the log; "" if the pool is off or not started yet.
  std::string PoolToken() const;

  HttpAnswer Get(const std::string& path) const;
  // GET, DELETE or POST (with `body`) as the holder of API key `key` ("" =
  // no Authorization header).
  HttpAnswer Call(const std::string& method, const std::string& path, const std::string& key,
                  const std::string& body = "") const;
  HttpAnswer Delete(const std::string& path) const;
  HttpAnswer Post(const std::string& path, const std::string& body,
                  const std::string& content_type = "application/json") const;
  // POST /v1/execute with {"language": language, "code": code} merged with `extra`.
  HttpAnswer Execute(const std::string& language, const std::string& code,
                     const nlohmann::json& extra = nlohmann::json::object()) const;

  // GETs `path` and hands each line of the body (without its '\n') to
  // `on_line` as it arrives, with the arrival time. Stops when the body ends,
  // when `on_line` returns false, or after `timeout`. Returns the HTTP status
  // (0 if the request failed before an answer).
  using LineHandler =
      std::function<bool(const std::string& line, std::chrono::steady_clock::time_point at)>;
  int StreamLines(const std::string& path, const LineHandler& on_line,
                  std::chrono::seconds timeout = std::chrono::seconds(60)) const;

  // Resident set size of the server process, bytes.
  long RssBytes() const;
  // Restarts the peak below from the current RSS; false if the kernel
  // refused (/proc/<pid>/clear_refs).
  bool ResetPeakRss() const;
  // The highest RSS of the server process since it started or since the
  // last ResetPeakRss (VmHWM), bytes: a peak, not a sample.
  long PeakRssBytes() const;

 private:
  void Spawn();

  pid_t pid_ = -1;
  int port_ = 0;
  int startup_exit_code_ = -1;
  std::string dir_;
  std::string instance_;
  std::string workspace_dir_;
  std::string socket_;
  int64_t uid_first_ = 0;
  int64_t uid_count_ = 0;
  std::string extra_yaml_;
  std::map<std::string, std::string> env_;
  bool owns_dir_ = true;
  int generation_ = 0;  // Restarts on this directory so far.
  mutable std::string log_;
};

// The engine socket under test, from CODERUNNER_TEST_ENGINE_SOCKET.
std::string EngineSocketUnderTest();
// The OCI runtime under test, from CODERUNNER_TEST_RUNTIME ("" = none: the
// engine's default). When set, every server runs its jobs under it
// (sandbox.runtime in the generated config).
std::string RuntimeUnderTest();
// The `coderunner` binary the tests run: the one CODERUNNER_TEST_SANITIZED_SERVICE
// names (a build with -DCODERUNNER_SANITIZE=ON: ctest sets it for the tests
// tests/integration/CMakeLists.txt registers as docker-asan.*), else this
// build's own.
std::string ServiceBinary();
// Whether ServiceBinary() is that sanitized build.
bool ServiceIsSanitized();
// Polls `done` every 50 ms until it holds; false if it still does not
// after `budget`. The budget only keeps a broken service from hanging the
// test: it is never what a test asserts.
bool Eventually(const std::function<bool()>& done,
                std::chrono::seconds budget = std::chrono::seconds(60));
// Contents of tests/hostile/<name>.
std::string HostileProgram(const std::string& name);
// Number of containers labelled with `instance` on the engine at `socket`.
// Containers carrying the pool label `except_pool` (a live server's idle
// warm containers) are not counted.
int CountContainers(const std::string& socket, const std::string& instance,
                    const std::string& except_pool = "");
// One API key of a test config.
struct TestKey {
  const char* tenant;
  const char* tier;
  const char* key;  // The plain key; the config gets its SHA-256.
};
// The "auth:" YAML section in api_keys mode with `keys`.
std::string ApiKeysYaml(const std::vector<TestKey>& keys);
// Number of containers (any state) carrying all of `labels`.
int CountLabelled(const std::string& socket, const std::map<std::string, std::string>& labels);
// Number of engine volumes labelled with `instance`.
int CountVolumes(const std::string& socket, const std::string& instance);

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_SERVER_PROCESS_H_
