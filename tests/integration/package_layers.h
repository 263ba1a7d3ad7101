// What the packages suites (PackagesTest, NpmPackagesTest) check the same
// way, whichever installer made the layer: the layers on the host's disk,
// a refusal before anything ran, and a loopback port nothing listens on.
#ifndef CODERUNNER_TESTS_INTEGRATION_PACKAGE_LAYERS_H_
#define CODERUNNER_TESTS_INTEGRATION_PACKAGE_LAYERS_H_

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
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

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_PACKAGE_LAYERS_H_
