// Per-uid kernel counters are never shared: every live container runs as a
// host uid of its own (isolation/uid_pool.h). The kernel keeps many limits
// per uid across the whole host (inotify instances, processes, queued
// signals, epoll watches, pipe buffers); with one shared uid, one tenant
// could use such a counter up and break every other tenant's jobs.
//
// The counters are the host's: the checks hold only if no process outside
// this test runs as these uids. Each test server has a uid range of its own
// (ServerProcess::uid_first), so the other servers ctest runs at the same
// time never do.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr const char* kAcme = "acme-key-0123456789";        // tier pro
constexpr const char* kInitech = "initech-key-0123456789";  // tier pro

int64_t HostMaxInotifyInstances() {
  std::ifstream in("/proc/sys/fs/inotify/max_user_instances");
  int64_t n = -1;
  in >> n;
  return n;
}

// "NAME VALUE" → VALUE for the first line starting with NAME.
std::string Field(const std::string& out, const std::string& name) {
  size_t at = out.find(name + " ");
  if (at == std::string::npos) return "";
  size_t end = out.find_first_of(" \n", at + name.size() + 1);
  return out.substr(at + name.size() + 1, end - at - name.size() - 1);
}

class UidIsolationTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"acme", "pro", kAcme}, {"initech", "pro", kInitech}}) +
           "jobs: {cache_ttl_s: 0}\n";
  }
  void TearDown() override {
    if (server_ && server_->started() && !sandbox_.empty()) {
      server_->Call("DELETE", "/v1/sandboxes/" + sandbox_, kAcme);
      std::error_code ec;
      std::filesystem::remove(server_->workspace_dir() + "/sandboxes", ec);
    }
    EngineTest::TearDown();
  }

  // POST /v1/execute as the tenant of `key`, never from the cache.
  json Run(const std::string& key, const std::string& code) {
    json body = {{"language", "python"}, {"code", code}, {"cache", false}};
    HttpAnswer a = server_->Call("POST", "/v1/execute", key, body.dump());
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json.value("cached", true), false) << a.body.substr(0, 300);
    return a.json;
  }

  std::string sandbox_;
};

TEST_F(UidIsolationTest, AnotherTenantsHeldInotifyInstancesLeaveThisJobsIntact) {
  if (RuntimeUnderTest() == "runsc") GTEST_SKIP() << "gVisor keeps these counters per sandbox";
  HttpAnswer created =
      server_->Call("POST", "/v1/sandboxes", kAcme, json{{"language", "python"}}.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  sandbox_ = created.json.value("id", "");
  json hog_body = {{"code", HostileProgram("inotify_hog.py")}};
  HttpAnswer hog =
      server_->Call("POST", "/v1/sandboxes/" + sandbox_ + "/execute", kAcme, hog_body.dump());
  ASSERT_EQ(hog.status, 200) << hog.body;
  const std::string held = hog.json.value("stdout", "");
  // The hog got every instance its uid may have, and no fewer: nothing else
  // on the host runs as its uid, one of this server's own.
  EXPECT_EQ(Field(held, "held"), std::to_string(HostMaxInotifyInstances())) << held;
  EXPECT_EQ(Field(held, "stopped"), "EMFILE") << held;
  int64_t hog_uid = std::stoll("0" + Field(held, "uid"));
  EXPECT_TRUE(server_->IsJobUid(hog_uid))
      << held << "not in [" << server_->uid_first() << ", +" << server_->uid_count() << ")";

  // While the sandbox holds them, the other tenant's jobs still get theirs,
  // each under a uid of its own.
  std::set<int64_t> uids = {hog_uid};
  for (int i = 0; i < 3; ++i) {
    json probe = Run(kInitech, HostileProgram("inotify_probe.py"));
    const std::string out = probe.value("stdout", "");
    EXPECT_EQ(probe["status"], "succeeded") << probe.dump();
    EXPECT_NE(out.find("inotify ok\n"), std::string::npos) << out;
    int64_t uid = std::stoll("0" + Field(out, "uid"));
    EXPECT_TRUE(server_->IsJobUid(uid)) << out;
    EXPECT_TRUE(uids.insert(uid).second) << "uid " << uid << " reused while its holder lives";
  }
}

TEST_F(UidIsolationTest, ConcurrentContainersNeverShareAUid) {
  // Three jobs at once (async), each reporting its uid while the others run.
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    json body = {{"language", "python"},
                 {"code", "import os, time\ntime.sleep(1.5)\nprint(os.getuid(), os.getgid())"},
                 {"cache", false}};
    HttpAnswer a = server_->Call("POST", "/v1/jobs", i % 2 ? kAcme : kInitech, body.dump());
    ASSERT_EQ(a.status, 202) << a.body;
    ids.push_back(a.json.value("id", ""));
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < ids.size(); ++i) {
    HttpAnswer w =
        server_->Call("GET", "/v1/jobs/" + ids[i] + "/wait?timeout_s=60", i % 2 ? kAcme : kInitech);
    ASSERT_EQ(w.status, 200) << w.body;
    const json& result = w.json.contains("result") ? w.json["result"] : w.json;
    std::string out = result.value("stdout", "");
    ASSERT_EQ(result.value("status", ""), "succeeded") << w.body;
    int64_t uid = std::stoll("0" + out.substr(0, out.find(' ')));
    EXPECT_TRUE(server_->IsJobUid(uid)) << out;
    // uid and gid are the same number.
    EXPECT_EQ(out, std::to_string(uid) + " " + std::to_string(uid) + "\n");
    EXPECT_TRUE(seen.insert(out).second) << "two jobs ran as " << out;
  }
}

}  // namespace
}  // namespace coderunner::testing
