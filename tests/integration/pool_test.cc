// The warm pool on a real engine: each pooled container serves one job,
// the pool refills, its containers carry the job policy as the engine
// reports it, and a pooled container that dies is replaced.
#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "coderunner/engine/containers.h"
#include "coderunner/engine/curl_transport.h"
#include "coderunner/isolation/container_policy.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

class PoolTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "pool: {size: 2, sizes: {bash: 1, javascript: 1}, max_idle_s: 600}\n";
  }

  // A sample of /metrics, e.g. `coderunner_pool_idle{language="python"}`;
  // -1 if absent.
  double Metric(const std::string& sample) const {
    HttpAnswer m = server_->Get("/metrics");
    size_t at = m.body.find("\n" + sample + " ");
    if (at == std::string::npos) return -1;
    return std::stod(m.body.substr(at + sample.size() + 2));
  }

  // The instance's idle pooled containers, as the engine lists them.
  std::vector<engine::ContainerSummary> PoolContainers() const {
    engine::CurlTransport transport(server_->socket());
    engine::ContainerClient containers(transport, std::chrono::seconds(30));
    auto list = containers.List(
        {{isolation::kLabelInstance, server_->instance()}, {isolation::kLabelLanguage, "python"}});
    std::vector<engine::ContainerSummary> out;
    if (!list.ok()) return out;
    for (const auto& c : *list) {
      if (c.labels.count(isolation::kLabelPool) > 0) out.push_back(c);
    }
    return out;
  }

  bool PythonPoolFull() const { return Metric(R"(coderunner_pool_idle{language="python"})") >= 2; }

  // Jobs a warm python container served so far (the counter appears with
  // the first).
  double PythonPoolHits() const {
    return std::max(0.0, Metric(R"(coderunner_pool_hits_total{language="python"})"));
  }

  // `code` after a first line that prints "WORKSPACE <name>", the name of
  // the host directory behind the job's /workspace: a warm container's slot
  // ("pool-<hex>"), or for a cold container the job's id.
  static std::string ReportingItsContainer(const std::string& code) {
    return "import os as _os\n"
           "print('WORKSPACE', _os.path.basename([l.split()[3] for l in "
           "open('/proc/self/mountinfo') if l.split()[4] == '/workspace'][0]), flush=True)\n" +
           code;
  }

  // Expects that the answer `r` came from a warm container: its program
  // reported a slot (ReportingItsContainer), and the pool counted one hit
  // since `hits_before`.
  void ExpectRanPooled(const json& r, double hits_before) const {
    std::string out = r.value("stdout", "");
    EXPECT_EQ(out.rfind("WORKSPACE pool-", 0), 0u) << "not a pooled container: " << r.dump();
    EXPECT_EQ(PythonPoolHits(), hits_before + 1) << "the pool did not serve exactly this job";
  }
};

TEST_F(PoolTest, EachJobGetsAFreshPooledContainer) {
  ASSERT_TRUE(Eventually([&] { return PythonPoolFull(); })) << server_->Get("/metrics").body;
  // Each job leaves a mark in /tmp and reports its container (the host
  // directory behind /workspace, one per container) and whether it saw an
  // earlier job's mark.
  const std::string code =
      "import os\n"
      "seen = os.path.exists('/tmp/mark')\n"
      "open('/tmp/mark', 'w').write('x')\n"
      "ws = [l.split()[3] for l in open('/proc/self/mountinfo') if l.split()[4] == '/workspace']\n"
      "print(ws[0], seen)\n";
  std::set<std::string> hosts;
  for (int i = 0; i < 5; ++i) {
    // Never from the cache: each answer comes from a container.
    json r = RunUncached("python", code);
    ASSERT_EQ(r["status"], "succeeded") << r.dump();
    std::string out = r["stdout"];
    EXPECT_NE(out.find(" False"), std::string::npos) << "a job saw another's /tmp: " << out;
    hosts.insert(out.substr(0, out.find(' ')));
  }
  EXPECT_EQ(hosts.size(), 5u) << "a container served two jobs";
  EXPECT_GE(Metric(R"(coderunner_pool_hits_total{language="python"})"), 1);
}

TEST_F(PoolTest, PoolRefillsAfterJobs) {
  ASSERT_TRUE(Eventually([&] { return PythonPoolFull(); }));
  double created_before = Metric("coderunner_pool_created_total");
  for (int i = 0; i < 4; ++i) {
    json r = RunUncached("python", "print(" + std::to_string(i) + ")");
    ASSERT_EQ(r["status"], "succeeded") << r.dump();
  }
  ASSERT_TRUE(Eventually([&] { return PythonPoolFull(); })) << server_->Get("/metrics").body;
  EXPECT_GE(Metric("coderunner_pool_created_total"), created_before + 1);
  // Used containers are removed: only idle ones remain (demand may have
  // raised the target above 2 for a while).
  ASSERT_TRUE(Eventually([&] {
    return static_cast<double>(PoolContainers().size()) ==
           Metric(R"(coderunner_pool_idle{language="python"})");
  })) << PoolContainers().size();
}

TEST_F(PoolTest, PooledContainersCarryTheJobPolicyAsTheEngineReportsIt) {
  ASSERT_TRUE(Eventually([&] { return PythonPoolFull(); }));
  engine::CurlTransport transport(server_->socket());
  engine::ContainerClient containers(transport, std::chrono::seconds(30));
  auto pooled = PoolContainers();
  ASSERT_FALSE(pooled.empty());
  std::set<std::string> users;
  for (const auto& c : pooled) {
    auto state = containers.Inspect(c.id);
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    const json& host = state->raw["HostConfig"];
    EXPECT_EQ(host["ReadonlyRootfs"], true) << host.dump();
    EXPECT_EQ(host["NetworkMode"], "none") << host.dump();
    EXPECT_EQ(host["Memory"], 268435456) << host.dump();
    EXPECT_EQ(host["PidsLimit"], 64) << host.dump();
    // Docker lists "ALL"; Podman lists every default capability by name.
    EXPECT_TRUE(host["CapAdd"].is_null() || host["CapAdd"].empty()) << host.dump();
    EXPECT_FALSE(host["CapDrop"].empty()) << host.dump();
    EXPECT_NE(host["SecurityOpt"].dump().find("no-new-privileges"), std::string::npos)
        << host.dump();
    // Each warm container has a job uid of its own, as "uid:gid".
    const std::string user = state->raw["Config"].value("User", "");
    const int64_t uid = std::atoll(user.c_str());
    EXPECT_TRUE(server_->IsJobUid(uid)) << user;
    EXPECT_EQ(user, std::to_string(uid) + ":" + std::to_string(uid));
    EXPECT_TRUE(users.insert(user).second) << "two warm containers run as " << user;
    EXPECT_TRUE(state->running);
  }
  // And a job in one sees exactly what a cold job sees.
  auto r = RunHostile("python", "identity.py");
  std::string out = r["stdout"];
  EXPECT_TRUE(RunsAsItsOwnJobUid(*server_, out)) << out;
  EXPECT_NE(out.find("CAPS 0000000000000000 0000000000000000 0000000000000000"), std::string::npos)
      << out;
  EXPECT_NE(out.find("\nPRCTL_NNP 1\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("ALLOWED"), std::string::npos) << out;
}

TEST_F(PoolTest, DeadPooledContainerIsReplaced) {
  ASSERT_TRUE(Eventually([&] { return PythonPoolFull(); }));
  auto pooled = PoolContainers();
  ASSERT_FALSE(pooled.empty());
  engine::CurlTransport transport(server_->socket());
  engine::ContainerClient containers(transport, std::chrono::seconds(30));
  ASSERT_TRUE(containers.Kill(pooled.front().id).ok());
  ASSERT_TRUE(Eventually([&] {
    return Metric(R"(coderunner_pool_replaced_total{reason="died"})") >= 1 && PythonPoolFull();
  })) << server_->Get("/metrics").body;
  for (int i = 0; i < 3; ++i) {
    json r = RunUncached("python", "print('after')");
    EXPECT_EQ(r["status"], "succeeded") << r.dump();
    EXPECT_EQ(r["stdout"], "after\n") << r.dump();
  }
}

TEST_F(PoolTest, PooledJobGetsArgsStdinFilesAndArtifacts) {
  ASSERT_TRUE(Eventually([&] { return PythonPoolFull(); }));
  double hits = Metric(R"(coderunner_pool_hits_total{language="python"})");
  json extra = {{"args", {"one", "two words"}},
                {"stdin", "from stdin\n"},
                {"files", {{{"path", "data/in.txt"}, {"content", "file text"}}}}};
  json r = RunUncached("python",
                       "import sys\n"
                       "print(sys.argv[1:], sys.stdin.read().strip(), open('data/in.txt').read())\n"
                       "open('/output/result.txt', 'w').write('artifact')\n",
                       extra);
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["stdout"], "['one', 'two words'] from stdin file text\n") << r.dump();
  ASSERT_EQ(r["artifacts"].size(), 1u) << r.dump();
  EXPECT_EQ(r["artifacts"][0]["path"], "result.txt");
  HttpAnswer file =
      server_->Get("/v1/jobs/" + r["id"].get<std::string>() + "/artifacts/result.txt");
  EXPECT_EQ(file.status, 200);
  EXPECT_EQ(file.body, "artifact");
  EXPECT_GT(Metric(R"(coderunner_pool_hits_total{language="python"})"), hits);
}

TEST_F(PoolTest, TimeoutAndOomInAPooledContainerAreReportedAsCold) {
  ASSERT_TRUE(Eventually([&] { return PythonPoolFull(); }));
  double hits = PythonPoolHits();
  json slow = RunUncached("python", ReportingItsContainer("import time\ntime.sleep(30)\n"),
                          {{"limits", {{"timeout_ms", 1000}}}});
  EXPECT_EQ(slow["status"], "timeout") << slow.dump();
  ExpectRanPooled(slow, hits);

  ASSERT_TRUE(Eventually([&] { return PythonPoolFull(); }));
  hits = PythonPoolHits();
  json oom = RunUncached("python", ReportingItsContainer(HostileProgram("alloc_1gib.py")));
  EXPECT_EQ(oom["status"], "oom") << oom.dump();
  ExpectRanPooled(oom, hits);
  ExpectNormalJobStillWorks();
}

TEST_F(PoolTest, ForgedEndMarkersDoNotEndTheOutput) {
  ASSERT_TRUE(Eventually([&] { return PythonPoolFull(); }));
  double hits = PythonPoolHits();
  json r = RunUncached("python", ReportingItsContainer(HostileProgram("fake_end_marker.py")));
  ExpectRanPooled(r, hits);
  std::string out = r["stdout"];
  EXPECT_NE(out.find("still here"), std::string::npos) << r.dump();
  EXPECT_EQ(out.find("FIFO READ"), std::string::npos) << r.dump();
  EXPECT_EQ(out.find("FIFO WRITABLE"), std::string::npos) << r.dump();
  EXPECT_EQ(r["exit_code"], 3) << r.dump();
  EXPECT_EQ(r["status"], "failed") << r.dump();
  ExpectNormalJobStillWorks();
}

}  // namespace
}  // namespace coderunner::testing
