// What the packages suites (PackagesTest, NpmPackagesTest) check the same
// way, whichever installer made the layer: the layers on the host's disk,
// a refusal before anything ran, and a loopback port nothing listens on.
#ifndef CODERUNNER_TESTS_INTEGRATION_PACKAGE_LAYERS_H_
#define CODERUNNER_TESTS_INTEGRATION_PACKAGE_LAYERS_H_

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace coderunner::testing {

// The layers under `layers_dir`, each checked: every entry root's, a
// directory or a regular file, writable by nobody else, setuid by none.
// Their number.
inline int CheckedLayers(const std::string& layers_dir) {
  int layers = 0;
  for (const auto& layer : std::filesystem::directory_iterator(layers_dir)) {
    ++layers;
    for (const auto& e : std::filesystem::recursive_directory_iterator(layer.path())) {
      struct stat st;
      EXPECT_EQ(lstat(e.path().c_str(), &st), 0) << e.path();
      EXPECT_EQ(st.st_uid, 0u) << e.path();
      EXPECT_TRUE(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) << e.path();
      EXPECT_EQ(st.st_mode & 07022, 0u) << e.path();
    }
  }
  return layers;
}

// A job refused for its packages: `code`, a message naming `named`, and
// nothing ran.
inline void ExpectRefusedBeforeRun(const nlohmann::json& r, const char* code, const char* named) {
  EXPECT_EQ(r["status"], "error") << r.dump();
  EXPECT_EQ(r["error"]["code"], code) << r.dump();
  EXPECT_NE(r["error"].value("message", "").find(named), std::string::npos) << r.dump();
  EXPECT_EQ(r["stdout"], "");
  EXPECT_EQ(r["metrics"]["run_ms"], 0);
}

// A loopback port nothing listens on (a mirror that is down), or free to
// start one on.
inline int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// A child of `parent` named `comm` that is not a zombie; 0 if none.
inline pid_t LiveChild(pid_t parent, const std::string& comm) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = e.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    const size_t open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z' && line.substr(open + 1, close - open - 1) == comm) {
      return static_cast<pid_t>(std::stol(pid));
    }
  }
  return 0;
}

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_PACKAGE_LAYERS_H_
