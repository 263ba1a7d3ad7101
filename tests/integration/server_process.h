// ServerProcess: a real `coderunner serve` child process for integration
// tests, configured against the engine named by CODERUNNER_TEST_ENGINE_SOCKET.
#ifndef CODERUNNER_TESTS_INTEGRATION_SERVER_PROCESS_H_
#define CODERUNNER_TESTS_INTEGRATION_SERVER_PROCESS_H_

#include <sys/types.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace coderunner::testing {

struct HttpAnswer {
  int status = 0;
  std::string body;
  nlohmann::json json;  // Parsed body (null if not JSON).
};

// Starts the server on a free port with a fresh workspace dir and a unique
// instance name, and stops it (SIGTERM, then SIGKILL) on destruction.
// Not thread-safe.
class ServerProcess {
 public:
  // `extra_yaml` is appended to the generated config. `socket` overrides
  // the engine socket (e.g. a path with nothing behind it). `env` adds
  // variables to the server's environment.
  explicit ServerProcess(const std::string& extra_yaml = "", const std::string& socket = "",
                         const std::map<std::string, std::string>& env = {});
  ~ServerProcess();

  bool started() const { return port_ > 0; }
  const std::string& log() const;  // Whatever the server printed so far.
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& instance() const { return instance_; }
  const std::string& workspace_dir() const { return workspace_dir_; }
  const std::string& socket() const { return socket_; }

  HttpAnswer Get(const std::string& path) const;
  HttpAnswer Post(const std::string& path, const std::string& body,
                  const std::string& content_type = "application/json") const;
  // POST /v1/execute with {"language": language, "code": code} merged with `extra`.
  HttpAnswer Execute(const std::string& language, const std::string& code,
                     const nlohmann::json& extra = nlohmann::json::object()) const;

  // Resident set size of the server process, bytes.
  long RssBytes() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string instance_;
  std::string workspace_dir_;
  std::string socket_;
  mutable std::string log_;
};

// The engine socket under test, from CODERUNNER_TEST_ENGINE_SOCKET.
std::string EngineSocketUnderTest();
// Contents of tests/hostile/<name>.
std::string HostileProgram(const std::string& name);
// Number of containers labelled with `instance` on the engine at `socket`.
int CountContainers(const std::string& socket, const std::string& instance);

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_SERVER_PROCESS_H_
