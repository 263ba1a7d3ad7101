// EngineTest: a fixture with a live server on the engine under test, which
// after every test proves nothing was left behind.
#ifndef CODERUNNER_TESTS_INTEGRATION_ENGINE_FIXTURE_H_
#define CODERUNNER_TESTS_INTEGRATION_ENGINE_FIXTURE_H_

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "server_process.h"

namespace coderunner::testing {

inline constexpr const char* kSecretCanary = "coderunner-canary-7f3a9c";

// identity.py's "UID <uid> <euid> GID <gid>" line names one of `server`'s
// job uids, three times (the gid has the uid's number).
inline bool RunsAsItsOwnJobUid(const ServerProcess& server, const std::string& out) {
  size_t at = out.find("UID ");
  if (at == std::string::npos) return false;
  long long uid = -1, euid = -2, gid = -3;
  if (sscanf(out.c_str() + at, "UID %lld %lld GID %lld", &uid, &euid, &gid) != 3) return false;
  return uid == euid && uid == gid && server.IsJobUid(uid);
}

// Under AddressSanitizer the allocator quarantines freed memory (hundreds of
// MiB), so the service's RSS says nothing about what it holds; RSS bounds
// are checked against this build's own service only (ServiceIsSanitized:
// the tests registered as docker-asan.* drive the sanitizer build's).
// Likewise the service's walks run several times slower there, so how far
// a job gets past a bound before the service reacts is a measure of the
// build; the tight figure is checked against the normal build.
inline bool RssIsMeaningful() { return !ServiceIsSanitized(); }

// What the entries below `dir` hold on the host's disk, as du counts it:
// the sum of st_blocks * 512 (never following a symlink; `dir` itself not
// included). 0 if `dir` does not exist.
inline int64_t DiskBytesBelow(const std::string& dir) {
  int64_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st;
    if (lstat(it->path().c_str(), &st) == 0) total += static_cast<int64_t>(st.st_blocks) * 512;
  }
  return total;
}

// The "NAME VALUE" lines of an answer's stdout (hostile programs report
// what they measured this way); the last line with a name wins.
inline std::map<std::string, std::string> StdoutFields(const nlohmann::json& answer) {
  std::map<std::string, std::string> out;
  std::istringstream in(answer.value("stdout", ""));
  std::string line;
  while (std::getline(in, line)) {
    size_t space = line.find(' ');
    if (space != std::string::npos) out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

// The integer a hostile program reported as "NAME VALUE"; fails the test
// and returns the largest int64_t (which no upper bound admits) if it did
// not report one.
inline int64_t ReportedInt(const nlohmann::json& answer, const std::string& name) {
  auto fields = StdoutFields(answer);
  auto it = fields.find(name);
  int64_t v = 0;
  if (it != fields.end()) {
    const std::string& s = it->second;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size()) return v;
  }
  ADD_FAILURE() << "no number " << name << " in:\n" << answer.value("stdout", "").substr(0, 2000);
  return std::numeric_limits<int64_t>::max();
}

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(EngineSocketUnderTest().empty())
        << "set CODERUNNER_TEST_ENGINE_SOCKET (ctest sets it per engine label)";
    ASSERT_TRUE(std::filesystem::exists(EngineSocketUnderTest()))
        << "engine socket " << EngineSocketUnderTest()
        << " does not exist: start it with scripts/start-docker.sh or scripts/start-podman.sh";
    server_ = std::make_unique<ServerProcess>(
        ExtraConfig(), "",
        std::map<std::string, std::string>{{"CODERUNNER_SECRET", kSecretCanary},
                                           {"AWS_SECRET_ACCESS_KEY", kSecretCanary}});
    ASSERT_TRUE(server_->started()) << server_->log();
  }

  void TearDown() override {
    if (!server_ || !server_->started()) return;
    // No container or workspace may outlive its job, whatever the job did:
    // none but the warm pool's idle ones while the server runs, and none at
    // all once it has shut down (which removes the pool).
    EXPECT_TRUE(server_->Stop()) << server_->log();
    EXPECT_EQ(CountContainers(server_->socket(), server_->instance()), 0)
        << "containers left behind by instance " << server_->instance() << "\n"
        << server_->log();
    std::error_code ec;
    int left = 0;
    for (auto it = std::filesystem::directory_iterator(server_->workspace_dir(), ec);
         !ec && it != std::filesystem::directory_iterator(); ++it) {
      ++left;
    }
    EXPECT_EQ(left, 0) << "workspaces left behind in " << server_->workspace_dir();
    EXPECT_EQ(CountVolumes(server_->socket(), server_->instance()), 0)
        << "volumes left behind by instance " << server_->instance();
  }

  virtual std::string ExtraConfig() const { return ""; }

  // Runs tests/hostile/<file> in `language` and returns the 200 answer.
  // Never from the result cache: an answer no container produced proves
  // nothing about containment (checked: `cached` is false).
  nlohmann::json RunHostile(const std::string& language, const std::string& file,
                            const nlohmann::json& extra = nlohmann::json::object()) {
    return RunUncached(language, HostileProgram(file), extra);
  }

  // POST /v1/execute with "cache": false; expects 200 and `cached: false`.
  nlohmann::json RunUncached(const std::string& language, const std::string& code,
                             nlohmann::json extra = nlohmann::json::object()) {
    extra["cache"] = false;
    HttpAnswer a = server_->Execute(language, code, extra);
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json.value("cached", true), false) << a.body.substr(0, 500);
    return a.json;
  }

  // POST /v1/sandboxes with `body`; expects 201 and returns the id ("" if
  // it was not created).
  std::string CreateSandbox(const std::string& body) {
    HttpAnswer created = server_->Post("/v1/sandboxes", body);
    EXPECT_EQ(created.status, 201) << created.body;
    return created.json.value("id", "");
  }

  // POST /v1/sandboxes/{id}/execute with `code`; expects 200 and returns
  // the answer.
  nlohmann::json CallSandbox(const std::string& id, const std::string& code) {
    HttpAnswer a =
        server_->Post("/v1/sandboxes/" + id + "/execute", nlohmann::json{{"code", code}}.dump());
    EXPECT_EQ(a.status, 200) << a.body;
    return a.json;
  }

  // After an attack, an ordinary job must still run normally, in a
  // container of its own (never answered from the cache).
  void ExpectNormalJobStillWorks() {
    nlohmann::json r = RunUncached("python", "print(6*7)");
    EXPECT_EQ(r["status"], "succeeded") << r.dump();
    EXPECT_EQ(r["stdout"], "42\n");
  }

  std::unique_ptr<ServerProcess> server_;
};

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_ENGINE_FIXTURE_H_
