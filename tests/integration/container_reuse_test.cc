// Container reuse (a tier's container_reuse, docs/security.md): one
// tenant's jobs follow each other in a pooled container, each a fresh
// process, with everything of the job before proven gone first; never
// across tenants. The hostile corpus runs against this mode too
// (ReuseAdversarialTest, adversarial_test.cc). Cache off throughout.
#include <httplib.h>

#include <set>
#include <string>

#include "coderunner/common/sha256.h"
#include "engine_fixture.h"
#include "hostile_attacks.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr const char* kAcmeKey = "acme-key-0123456789";
constexpr const char* kGlobexKey = "globex-key-0123456789";

class ContainerReuseTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "auth:\n  mode: api_keys\n  keys:\n"
           "    - {tenant: acme, tier: pro, key_sha256: \"" +
           Sha256Hex(kAcmeKey) +
           "\"}\n"
           "    - {tenant: globex, tier: pro, key_sha256: \"" +
           Sha256Hex(kGlobexKey) +
           "\"}\n"
           "tiers: {pro: {container_reuse: true}}\n"
           "jobs: {cache_ttl_s: 0}\n";
  }

  // POST /v1/execute as the tenant of `key`; the answer (200 expected).
  json Execute(const std::string& key, const std::string& code, json body = json::object()) {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(120, 0);
    httplib::Headers h = {{"Authorization", std::string("Bearer ") + key}};
    body["language"] = "python";
    body["code"] = code;
    body["cache"] = false;
    httplib::Result r = c.Post("/v1/execute", h, body.dump(), "application/json");
    if (!r || r->status != 200) {
      ADD_FAILURE() << (r ? r->body : "no answer");
      return json::object();
    }
    return json::parse(r->body);
  }

  // Runs identity jobs as the tenant of `key` until two in a row ran in
  // one container (the first jobs may find no warm container of the
  // tier's shape yet: a cold job's container serves it alone). Returns
  // that container's identity; "" if it never happened (bounded).
  std::string ReusedContainer(const std::string& key);
};

// The container's identity as the hostile programs print it: init's start
// time and the container's cgroup.
constexpr char kIdentity[] =
    "print('container', open('/proc/1/stat').read().split()[21] + '@' + "
    "open('/proc/self/cgroup').readline().strip().replace(' ', '_'))\n";

std::string ContainerReuseTest::ReusedContainer(const std::string& key) {
  std::string last;
  for (int i = 0; i < 20; ++i) {
    std::string id =
        StdoutFields(Execute(key, std::string(kIdentity) + "# " + std::to_string(i)))["container"];
    if (!id.empty() && id == last) return id;
    last = id;
  }
  ADD_FAILURE() << "no two jobs in a row ran in one container";
  return "";
}

// tests/hostile/reuse_leftovers.py leaves a daemon holding an abstract
// socket, files (one in a directory without rights, a FIFO), System V IPC
// objects and /output without its write bit; tests/hostile/reuse_probe.py,
// run next in the same container, finds none of it.
TEST_F(ContainerReuseTest, NothingAJobLeftReachesTheNextJobInItsContainer) {
  ASSERT_FALSE(ReusedContainer(kAcmeKey).empty());
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    json left = Execute(kAcmeKey, HostileProgram("reuse_leftovers.py"));
    EXPECT_EQ(left.value("status", ""), "succeeded") << left.dump().substr(0, 2000);
    ExpectExactly(left, {{"shm", "True"}, {"msg", "True"}, {"left", "True"}});
    json probe = Execute(kAcmeKey, HostileProgram("reuse_probe.py"));
    EXPECT_EQ(probe.value("status", ""), "succeeded") << probe.dump().substr(0, 2000);
    // In the very container the leftovers were left in: else this proves
    // nothing about reuse.
    EXPECT_EQ(StdoutFields(probe)["container"], StdoutFields(left)["container"]);
    ExpectExactly(probe, {{"processes", "0"},
                          {"tmp_entries", "0"},
                          {"output_entries", "0"},
                          {"output_writable", "True"},
                          {"sysv_shm", "0"},
                          {"sysv_msg", "0"},
                          {"abstract_socket", "ECONNREFUSED"}});
  }
}

// Two tenants of the same tier, their jobs interleaved: each tenant's jobs
// share containers among themselves, and no container ever serves both.
TEST_F(ContainerReuseTest, TwoTenantsNeverShareAContainer) {
  ASSERT_FALSE(ReusedContainer(kAcmeKey).empty());
  ASSERT_FALSE(ReusedContainer(kGlobexKey).empty());
  std::set<std::string> acme, globex;
  constexpr int kJobsEach = 6;
  for (int i = 0; i < kJobsEach; ++i) {
    const std::string tag = "# " + std::to_string(i) + "\n";
    json a = Execute(kAcmeKey, kIdentity + tag);
    json g = Execute(kGlobexKey, kIdentity + tag);
    acme.insert(StdoutFields(a)["container"]);
    globex.insert(StdoutFields(g)["container"]);
  }
  for (const auto& id : acme) EXPECT_EQ(globex.count(id), 0u) << id << " served both tenants";
  // Reuse happened: fewer containers than jobs, for each tenant.
  EXPECT_LT(acme.size(), static_cast<size_t>(kJobsEach));
  EXPECT_LT(globex.size(), static_cast<size_t>(kJobsEach));
}

// A job that leaves artifacts, or ends at its deadline, ends its
// container's service: the next job gets another container, and the
// artifacts are the job's.
TEST_F(ContainerReuseTest, AJobWithArtifactsOrAKilledJobEndsTheContainersService) {
  const std::string reused = ReusedContainer(kAcmeKey);
  json artifact =
      Execute(kAcmeKey, std::string(kIdentity) + "open('/output/a.txt', 'w').write('a')\n");
  EXPECT_EQ(StdoutFields(artifact)["container"], reused);
  ASSERT_TRUE(artifact["id"].is_string()) << artifact.dump();
  EXPECT_TRUE(std::filesystem::exists(server_->artifacts_dir() + "/" +
                                      artifact["id"].get<std::string>() + "/a.txt"));
  json after = Execute(kAcmeKey, kIdentity);
  EXPECT_NE(StdoutFields(after)["container"], reused);
  // Likewise a job its deadline ended.
  const std::string again = ReusedContainer(kAcmeKey);
  json timed = Execute(
      kAcmeKey, std::string(kIdentity) + "import sys, time\nsys.stdout.flush()\ntime.sleep(30)\n",
      {{"limits", {{"timeout_ms", 1000}}}});
  EXPECT_EQ(timed.value("status", ""), "timeout") << timed.dump().substr(0, 1000);
  EXPECT_EQ(StdoutFields(timed)["container"], again);
  json next = Execute(kAcmeKey, kIdentity);
  EXPECT_NE(StdoutFields(next)["container"], again);
}

}  // namespace
}  // namespace coderunner::testing
