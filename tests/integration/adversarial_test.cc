// The adversarial suite: every hostile program in tests/hostile/ that is not
// already covered by hardening_test.cc, table-driven. Each case checks the
// containment itself (what the program measured: tasks, descriptors,
// errno, exact output) and that a normal job still succeeds right after.
// Every job runs in a container of its own, never answered from the cache.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine_fixture.h"
#include "hostile_attacks.h"
#include "mcp_client.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

class AdversarialTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "sandbox: {nofile: " + std::to_string(kHostileNofile) + "}\n";
  }

  // How a job is submitted: `language`, `code` and the request's `limits`
  // ({} for defaults) in, the job's result (as /v1/execute answers it) out.
  using Submit =
      std::function<json(const std::string& language, const std::string& code, const json& limits)>;

  // Every attack of Attacks(), submitted by `submit`, is contained, and an
  // ordinary job submitted the same way still runs right after each.
  void ExpectEveryAttackContained(const Submit& submit) {
    for (const Attack& a : Attacks()) {
      SCOPED_TRACE(a.file);
      json r = submit(a.language, HostileProgram(a.file), a.limits);
      ASSERT_TRUE(r.is_object());
      EXPECT_TRUE(r.contains("metrics")) << r.dump().substr(0, 2000);  // Peak memory, checked.
      ExpectAttackContained(a, r);
      json normal = submit("python", "print(6*7)", json::object());
      EXPECT_EQ(normal["status"], "succeeded") << normal.dump();
      EXPECT_EQ(normal["stdout"], "42\n");
    }
  }
};

TEST_F(AdversarialTest, EveryAttackIsContainedAndTheNextJobRuns) {
  ExpectEveryAttackContained(
      [&](const std::string& language, const std::string& code, const json& limits) {
        json extra = json::object();
        if (!limits.empty()) extra["limits"] = limits;
        return RunUncached(language, code, extra);
      });
}

// The same attacks through MCP's run_code (docs/mcp.md), on Docker only:
// the engine does not matter to the transport. run_code takes no `cache`,
// so the result cache is off (a cached answer proves nothing about
// containment; checked on each job's record).
class McpAdversarialTest : public AdversarialTest {
 protected:
  std::string ExtraConfig() const override {
    return AdversarialTest::ExtraConfig() + "jobs: {cache_ttl_s: 0}\n";
  }
};

// run_code's structuredContent, and `limits` from the job's record when the
// result does not carry them (docs/mcp.md does not list them).
json RunCodeResult(const ServerProcess& server, McpClient& mcp, const std::string& language,
                   const std::string& code, const json& limits) {
  json arguments = {{"language", language}, {"code", code}};
  if (!limits.empty()) arguments["limits"] = limits;
  McpAnswer a = mcp.CallTool("run_code", arguments);
  EXPECT_EQ(a.status, 200) << a.body.substr(0, 2000);
  json result = a.response.is_object() ? a.response.value("result", json()) : json();
  json r = result.is_object() ? result.value("structuredContent", json()) : json();
  if (!r.is_object() || !r.contains("job_id")) {
    ADD_FAILURE() << "no structuredContent with a job_id: " << a.body.substr(0, 2000);
    return json::object();
  }
  EXPECT_EQ(result.value("isError", false), r["status"] != "succeeded") << r.dump().substr(0, 500);
  HttpAnswer record = server.Get("/v1/jobs/" + r["job_id"].get<std::string>());
  EXPECT_EQ(record.status, 200) << record.body.substr(0, 500);
  EXPECT_EQ(record.json.value("cached", true), false) << record.body.substr(0, 500);
  if (!r.contains("limits")) r["limits"] = record.json["limits"];
  return r;
}

TEST_F(McpAdversarialTest, EveryAttackThroughRunCodeIsContainedAndTheNextJobRuns) {
  McpClient mcp(server_->port(), "");
  ASSERT_EQ(mcp.Initialize().status, 200);
  ExpectEveryAttackContained(
      [&](const std::string& language, const std::string& code, const json& limits) {
        return RunCodeResult(*server_, mcp, language, code, limits);
      });
}

// tests/hostile/double_fork.py: a daemonized grandchild beats a counter
// into /output/heartbeat every 5 ms (fsync'd) until it dies. It must die
// with the job's main process: the job ends as succeeded (its main
// process's exit, not the wall clock), and the counter on the host, read
// after the answer, is unchanged after a whole further job has run.
TEST_F(AdversarialTest, ADaemonizedGrandchildDiesWithTheJob) {
  json r = RunHostile("python", "double_fork.py", {{"limits", {{"timeout_ms", 20000}}}});
  EXPECT_EQ(r["status"], "succeeded") << r.dump().substr(0, 2000);
  EXPECT_EQ(r["stdout"], "grandchild beating True\nmain exits\n") << r.dump().substr(0, 2000);
  ASSERT_TRUE(r["id"].is_string()) << r.dump();
  const std::string heartbeat =
      server_->artifacts_dir() + "/" + r["id"].get<std::string>() + "/heartbeat";
  auto read = [&] {
    std::ifstream in(heartbeat, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string before = read();
  ASSERT_EQ(before.size(), 12u) << heartbeat;
  EXPECT_GE(std::stoll(before), 3) << before;
  ExpectNormalJobStillWorks();
  EXPECT_EQ(read(), before) << "the grandchild outlived its job";
}

TEST_F(AdversarialTest, NothingPersistsBetweenJobs) {
  for (int run = 0; run < 2; ++run) {
    auto r = RunHostile("bash", "persist_files.sh");
    std::string out = r["stdout"];
    EXPECT_EQ(out.find("FOUND"), std::string::npos) << "run " << run << ": " << out;
  }
  ExpectNormalJobStillWorks();
}

TEST_F(AdversarialTest, BothStreamsFloodedAreCappedWithFlatRss) {
  long before = server_->RssBytes();
  // The peak over the whole job, not a reading after it: memory held while
  // the 600 MiB stream in, and freed before the answer, counts too (and so
  // do the answer's copies of its 2 MiB).
  ASSERT_TRUE(server_->ResetPeakRss());
  auto r = RunHostile("python", "both_streams.py", {{"limits", {{"timeout_ms", 60000}}}});
  long peak = server_->PeakRssBytes();
  std::cout << "[  FIGURE  ] both_streams: RSS " << before << " B before, peak " << peak
            << " B, growth " << peak - before << " B" << std::endl;
  EXPECT_EQ(r["status"], "succeeded") << r["error"].dump();
  EXPECT_EQ(r["stdout"].get<std::string>().size(), 1u << 20);
  EXPECT_EQ(r["stderr"].get<std::string>().size(), 1u << 20);
  EXPECT_EQ(r["stdout_truncated"], true);
  EXPECT_EQ(r["stderr_truncated"], true);
  if (RssIsMeaningful()) {
    EXPECT_LT(peak - before, 16L << 20) << "RSS peaked at " << peak << " from " << before;
  }
  ExpectNormalJobStillWorks();
}

TEST_F(AdversarialTest, HostileRequestsAreRefusedBeforeAnythingRuns) {
  std::string many = R"J({"code":"print(1)","files":[)J";
  for (int i = 0; i < 10000; ++i) {
    many += (i ? "," : "") + std::string(R"J({"path":"../../zip/slip)J") + std::to_string(i) +
            R"J(","content":""})J";
  }
  many += "]}";
  std::string huge_args = R"J({"code":"print(1)","args":[)J";
  for (int i = 0; i < 5000; ++i) huge_args += (i ? ",\"" : "\"") + std::string(100, 'a') + "\"";
  huge_args += "]}";
  struct Case {
    const char* name;
    std::string body;
    int status;
  };
  const Case cases[] = {
      {"10,000-file zip slip", many, 400},
      {"5,000 huge args", huge_args, 400},
      {"traversal", R"J({"code":"1","files":[{"path":"a/../../etc/passwd","content":""}]})J", 400},
      {"absolute", R"J({"code":"1","files":[{"path":"/etc/passwd","content":""}]})J", 400},
      {"dot-dot", R"J({"code":"1","files":[{"path":"..","content":""}]})J", 400},
      {"backslash", R"J({"code":"1","files":[{"path":"..\\x","content":""}]})J", 400},
      {"NUL in name", R"J({"code":"1","files":[{"path":"a\u0000b","content":""}]})J", 400},
      {"newline in name", R"J({"code":"1","files":[{"path":"a\nb","content":""}]})J", 400},
      {"reserved name", R"J({"code":"1","files":[{"path":".coderunner-stdin","content":""}]})J",
       400},
      {"deep JSON", std::string(5000, '[') + std::string(5000, ']'), 400},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    HttpAnswer a = server_->Post("/v1/execute", c.body);
    EXPECT_EQ(a.status, c.status) << a.body.substr(0, 300);
  }
  ExpectNormalJobStillWorks();
}

// The same attacks with container reuse on (docs/security.md, "Container
// reuse"): the jobs of this server's one tenant follow each other in a
// container whenever the one before ended cleanly, so each attack runs in
// a container an earlier attack or job ran in, and the next job runs where
// the attack ran. Every check above holds unchanged; the pool's counter
// shows that containers were in fact reused.
class ReuseAdversarialTest : public AdversarialTest {
 protected:
  std::string ExtraConfig() const override {
    return AdversarialTest::ExtraConfig() + "tiers: {enterprise: {container_reuse: true}}\n";
  }

  // coderunner_pool_reused_total over the languages.
  int64_t Reused() {
    HttpAnswer m = server_->Get("/metrics");
    int64_t n = 0;
    std::istringstream in(m.body);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("coderunner_pool_reused_total{", 0) == 0) {
        n += std::stoll(line.substr(line.rfind(' ') + 1));
      }
    }
    return n;
  }
};

TEST_F(ReuseAdversarialTest, EveryAttackIsContainedAndTheNextJobRuns) {
  ExpectEveryAttackContained(
      [&](const std::string& language, const std::string& code, const json& limits) {
        json extra = json::object();
        if (!limits.empty()) extra["limits"] = limits;
        return RunUncached(language, code, extra);
      });
  // Each attack is followed by an ordinary python job: most of those ran
  // where an earlier job had run.
  EXPECT_GE(Reused(), static_cast<int64_t>(Attacks().size() / 4)) << "containers were not reused";
}

// Run until two of the runs were given a container an earlier run left
// its markers in (the first runs may find no warm container yet, and a
// cold job's container serves it alone; bounded): none finds a marker.
TEST_F(ReuseAdversarialTest, NothingPersistsBetweenJobs) {
  for (int run = 0; run < 20 && Reused() < 2; ++run) {
    auto r = RunHostile("bash", "persist_files.sh");
    std::string out = r["stdout"];
    EXPECT_EQ(out.find("FOUND"), std::string::npos) << "run " << run << ": " << out;
  }
  EXPECT_GE(Reused(), 2);
  ExpectNormalJobStillWorks();
}

}  // namespace
}  // namespace coderunner::testing
