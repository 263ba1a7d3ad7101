// The package gateway takes one request line of names from the sandbox's
// own uid, and nothing else: the request grammar, a stranger's connection,
// a second request while one is in service, and a request past its bytes.
#include "sandboxes/package_gateway.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <future>

namespace coderunner::sandboxes {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(PackageGatewayTest, ARequestIsAnEcosystemAndNamesOnly) {
  std::string ecosystem;
  std::vector<std::string> packages;
  ASSERT_TRUE(ParseGatewayRequest(R"({"ecosystem": "npm", "packages": ["a@1", "b"]})", &ecosystem,
                                  &packages)
                  .ok());
  EXPECT_EQ(ecosystem, "npm");
  EXPECT_EQ(packages, (std::vector<std::string>{"a@1", "b"}));
  const std::string kBad[] = {
      "",
      "[]",
      R"({"ecosystem": "python"})",
      R"({"packages": ["x"]})",
      R"({"ecosystem": 1, "packages": ["x"]})",
      R"({"ecosystem": "python", "packages": "x"})",
      R"({"ecosystem": "python", "packages": [1]})",
      R"({"ecosystem": "python", "packages": [["x"]]})",
      std::string(100, '[') + std::string(100, ']'),
  };
  for (const auto& bad : kBad) {
    SCOPED_TRACE(bad.substr(0, 60));
    Status s = ParseGatewayRequest(bad, &ecosystem, &packages);
    EXPECT_EQ(s.reason(), "invalid_request");
  }
}

class PackageGatewayServeTest : public ::testing::Test {
 protected:
  static constexpr int64_t kUid = 65534;
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
    char tmpl[] = "/tmp/coderunner-gateway-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    chmod(dir_.c_str(), 0755);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // Connects as `uid` (in a child), sends `line`, and returns what came
  // back ("" for nothing).
  std::string Ask(int64_t uid, const std::string& line) {
    int out[2];
    if (pipe(out) != 0) return "pipe";
    pid_t pid = fork();
    if (pid == 0) {
      close(out[0]);
      if (uid != 0 && (setgid(uid) != 0 || setuid(uid) != 0)) _exit(3);
      int fd = socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/%s", dir_.c_str(), kGatewaySocket);
      if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) _exit(4);
      (void)!write(fd, line.data(), line.size());
      shutdown(fd, SHUT_WR);
      char buf[4096];
      ssize_t n;
      while ((n = read(fd, buf, sizeof(buf))) > 0) (void)!write(out[1], buf, n);
      _exit(0);
    }
    close(out[1]);
    std::string got;
    char buf[4096];
    ssize_t n;
    while ((n = read(out[0], buf, sizeof(buf))) > 0) got.append(buf, n);
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return got;
  }
  std::string dir_;
};

TEST_F(PackageGatewayServeTest, OnlyTheSandboxsUidIsAnsweredOneRequestAtATime) {
  std::atomic<int> calls{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  PackageGateway gateway([&](const std::string& id, const std::string& ecosystem,
                             const std::vector<std::string>& packages) {
    ++calls;
    if (packages.front() == "slow") released.wait();
    return json{{"ok", true}, {"id", id}, {"ecosystem", ecosystem}, {"packages", packages}};
  });
  ASSERT_TRUE(gateway.Open("sbx-1", dir_, kUid).ok());
  struct stat st;
  ASSERT_EQ(lstat((dir_ + "/" + kGatewaySocket).c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  EXPECT_EQ(st.st_gid, kUid);
  const std::string ask = R"({"ecosystem": "python", "packages": ["crtiny"]})"
                          "\n";
  // Root is not the sandbox: closed unanswered, the handler never called.
  EXPECT_EQ(Ask(0, ask), "");
  EXPECT_EQ(calls, 0);
  json answer = json::parse(Ask(kUid, ask));
  EXPECT_EQ(answer["id"], "sbx-1");
  EXPECT_EQ(answer["packages"], json::array({"crtiny"}));
  // A second request while one is in service: told so at once.
  auto slow = std::async(std::launch::async, [&] {
    return Ask(kUid, R"({"ecosystem": "python", "packages": ["slow"]})"
                     "\n");
  });
  while (calls < 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(json::parse(Ask(kUid, ask))["code"], "sandbox_busy");
  release.set_value();
  EXPECT_EQ(json::parse(slow.get())["packages"], json::array({"slow"}));
  // Past the bytes of a request: refused, the handler never called.
  const int before = calls;
  std::string huge = R"({"ecosystem": "python", "packages": [")" +
                     std::string(kMaxGatewayRequestBytes, 'a') + "\"]}\n";
  std::string refused = Ask(kUid, huge);
  if (!refused.empty()) {
    EXPECT_EQ(json::parse(refused)["code"], "invalid_request");
  }
  EXPECT_EQ(calls, before);
  gateway.Close("sbx-1");
}

}  // namespace
}  // namespace coderunner::sandboxes
