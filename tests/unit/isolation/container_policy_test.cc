#include "coderunner/isolation/container_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::isolation {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr const char* kInit = "/opt/coderunner/bin/coderunner-init";
constexpr const char* kWorkspace = "/var/lib/coderunner/workspaces/job-abc";

JobSpec SampleJob() {
  JobSpec job;
  job.id = "job-abc";
  job.language = {
      "python", "coderunner/python:3.11", "main.py", {"python3", "-u", "{file}"}, true, "", {}};
  job.code = "print(1)";
  job.args = {"first", "--flag", "{file}"};
  job.limits.memory_bytes = 128LL << 20;
  job.limits.cpus = 0.5;
  job.limits.pids = 32;
  job.limits.tmp_bytes = 16LL << 20;
  job.limits.cpu_ms = 2500;
  return job;
}

// The job tests/testdata/engine/policy_create.json was built from; its
// containers were created on both engines by tests/testdata/engine/record.py.
JobSpec RecordedJob() {
  JobSpec job = SampleJob();
  job.id = "job-rec";
  job.language.image = "coderunner/bash:5";
  return job;
}
constexpr const char* kRecordedWorkspace = "/tmp/coderunner-rec-ws";
constexpr const char* kRecordedInit = "/tmp/coderunner-rec-init";

PolicySettings SampleSettings() {
  PolicySettings s;
  s.init_host_path = kInit;
  return s;
}

// What an engine's inspect body looks like for a container created from
// `create` (Docker's shape).
json InspectFrom(const json& create, const std::string& workspace) {
  json inspect;
  inspect["Id"] = "0123";
  inspect["Config"] = {{"User", create["User"]},
                       {"Entrypoint", create["Entrypoint"]},
                       {"Cmd", create["Cmd"]},
                       {"Labels", create["Labels"]},
                       {"Env", json::array()}};
  inspect["HostConfig"] = create["HostConfig"];
  inspect["Mounts"] = {
      {{"Type", "bind"}, {"Source", workspace}, {"Destination", "/workspace"}, {"RW", false}},
      {{"Type", "bind"}, {"Source", kInit}, {"Destination", "/.coderunner-init"}, {"RW", false}},
  };
  return inspect;
}

class ContainerPolicyTest : public ::testing::Test {
 protected:
  // Verify must report a mismatch as a Status, never by throwing.
  Status VerifyNoThrow(const ContainerContext& ctx, const json& inspect) {
    try {
      return policy_.Verify(ctx, inspect);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "Verify threw instead of returning a Status: " << e.what();
      return InternalError(e.what(), "threw");
    }
  }

  JobSpec job_ = SampleJob();
  ContainerPolicy policy_{SampleSettings(), "inst-1"};
  ContainerContext ctx_{job_, kWorkspace, false, {}};
};

TEST_F(ContainerPolicyTest, NetworkIsDisabled) {
  json c = policy_.BuildCreateBody(ctx_);
  EXPECT_EQ(c["HostConfig"]["NetworkMode"], "none");
  EXPECT_EQ(c["NetworkDisabled"], true);
}

TEST_F(ContainerPolicyTest, FilesystemIsReadOnlyWithCappedTmp) {
  json c = policy_.BuildCreateBody(ctx_);
  const json& h = c["HostConfig"];
  EXPECT_EQ(h["ReadonlyRootfs"], true);
  ASSERT_TRUE(h["Tmpfs"].is_object());
  ASSERT_TRUE(h["Tmpfs"].contains("/tmp"));
  std::string tmp = h["Tmpfs"]["/tmp"];
  EXPECT_EQ(tmp.rfind("rw,", 0), 0u) << tmp;
  EXPECT_THAT(tmp, HasSubstr("size=" + std::to_string(16LL << 20)));
  EXPECT_THAT(tmp, HasSubstr("noexec"));
  EXPECT_THAT(tmp, HasSubstr("nosuid"));
  // /tmp is the only writable tmpfs; Podman's implicit /run and /var/tmp are
  // covered by read-only ones.
  for (const char* ro : {"/run", "/var/tmp"}) {
    SCOPED_TRACE(ro);
    ASSERT_TRUE(h["Tmpfs"].contains(ro));
    EXPECT_EQ(h["Tmpfs"][ro].get<std::string>().rfind("ro,", 0), 0u);
  }
  for (const auto& [dest, opts] : h["Tmpfs"].items()) {
    if (dest != "/tmp") {
      EXPECT_EQ(opts.get<std::string>().rfind("ro,", 0), 0u) << dest;
    }
    EXPECT_THAT(opts.get<std::string>(), HasSubstr("size=")) << dest;
  }
  EXPECT_EQ(h["Binds"], json({std::string(kWorkspace) + ":/workspace:ro",
                              std::string(kInit) + ":/.coderunner-init:ro"}));
  EXPECT_EQ(h["IpcMode"], "none");
  EXPECT_EQ(c["WorkingDir"], "/workspace");
}

TEST_F(ContainerPolicyTest, IdentityIsUnprivileged) {
  json c = policy_.BuildCreateBody(ctx_);
  const json& h = c["HostConfig"];
  EXPECT_EQ(c["User"], "65534:65534");
  EXPECT_EQ(h["CapDrop"], json({"ALL"}));
  EXPECT_EQ(h["CapAdd"], json::array());
  EXPECT_EQ(h["SecurityOpt"], json({"no-new-privileges"}));
  EXPECT_EQ(h["Privileged"], false);
}

TEST_F(ContainerPolicyTest, ResourceLimitsComeFromTheJob) {
  json c = policy_.BuildCreateBody(ctx_);
  const json& h = c["HostConfig"];
  EXPECT_EQ(h["Memory"], 128LL << 20);
  EXPECT_EQ(h["MemorySwap"], h["Memory"]);
  EXPECT_EQ(h["NanoCpus"], 500000000);
  EXPECT_EQ(h["PidsLimit"], 32);
  EXPECT_EQ(h["OomKillDisable"], false);
}

TEST_F(ContainerPolicyTest, UlimitsAreAllExplicit) {
  json c = policy_.BuildCreateBody(ctx_);
  std::map<std::string, std::pair<int64_t, int64_t>> got;
  for (const auto& u : c["HostConfig"]["Ulimits"]) {
    got[u["Name"].get<std::string>()] = {u["Soft"].get<int64_t>(), u["Hard"].get<int64_t>()};
  }
  std::map<std::string, std::pair<int64_t, int64_t>> want = {
      {"nofile", {1024, 1024}}, {"nproc", {4096, 4096}}, {"fsize", {16LL << 20, 16LL << 20}},
      {"core", {0, 0}},         {"cpu", {3, 4}},  // 2500 ms rounds up to 3 s; hard one second
                                                  // later.
  };
  EXPECT_EQ(got, want);
}

TEST(ContainerPolicyRuntimeTest, PidsBoundIsTheCgroupUnderRuncAndNprocUnderGvisor) {
  // Under gVisor the sentry enforces RLIMIT_NPROC per sandbox (threads
  // included) and the pids cgroup holds its host threads, so the job's bound
  // moves to nproc and PidsLimit becomes a host backstop with room for them.
  struct Case {
    const char* service;
    const char* job;
    int64_t pids;
    int64_t want_pids_limit;
    int64_t want_nproc;
  };
  const Case cases[] = {
      {"", "", 32, 32, 4096},
      {"runc", "", 64, 64, 4096},
      {"", "runc", 64, 64, 4096},
      {"runsc", "runc", 64, 64, 4096},
      {"runsc", "", 32, 64 + 20 * 32, 32},
      {"", "runsc", 64, 64 + 20 * 64, 64},
      {"runc", "runsc", 256, 64 + 20 * 256, 256},
      {"", "runsc", 1, 84, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string("service '") + c.service + "' job '" + c.job + "' pids " +
                 std::to_string(c.pids));
    PolicySettings settings = SampleSettings();
    settings.runtime = c.service;
    ContainerPolicy policy(settings, "inst-1");
    JobSpec job = SampleJob();
    job.runtime = c.job;
    job.limits.pids = c.pids;
    ContainerContext ctx{job, kWorkspace, false, {}};
    json create = policy.BuildCreateBody(ctx);
    EXPECT_EQ(create["HostConfig"]["PidsLimit"], c.want_pids_limit);
    int64_t nproc = -1;
    for (const auto& u : create["HostConfig"]["Ulimits"]) {
      if (u["Name"] == "nproc") {
        EXPECT_EQ(u["Soft"], u["Hard"]);
        nproc = u["Hard"].get<int64_t>();
      }
    }
    EXPECT_EQ(nproc, c.want_nproc);
    // Verify expects exactly what Apply set, and nothing looser.
    json inspect = InspectFrom(create, kWorkspace);
    Status ok = policy.Verify(ctx, inspect);
    EXPECT_TRUE(ok.ok()) << ok.ToString();
    inspect["HostConfig"]["PidsLimit"] = c.want_pids_limit + 1;
    EXPECT_FALSE(policy.Verify(ctx, inspect).ok());
  }
}

TEST_F(ContainerPolicyTest, CpuUlimitRoundsUpToWholeSeconds) {
  struct Case {
    int64_t cpu_ms, soft;
  };
  for (const Case& c : {Case{1, 1}, Case{999, 1}, Case{1000, 1}, Case{1001, 2}, Case{60000, 60}}) {
    SCOPED_TRACE(c.cpu_ms);
    JobSpec job = SampleJob();
    job.limits.cpu_ms = c.cpu_ms;
    json body = policy_.BuildCreateBody({job, kWorkspace, false, {}});
    bool found = false;
    for (const auto& u : body["HostConfig"]["Ulimits"]) {
      if (u["Name"] != "cpu") continue;
      found = true;
      EXPECT_EQ(u["Soft"], c.soft);
      EXPECT_EQ(u["Hard"], c.soft + 1);
    }
    EXPECT_TRUE(found);
  }
}

TEST_F(ContainerPolicyTest, NanoCpusIsRoundedNotTruncated) {
  struct Case {
    double cpus;
    int64_t nano;
  };
  for (const Case& c : {Case{1.0, 1000000000}, Case{0.01, 10000000}, Case{0.29, 290000000},
                        Case{1.001, 1001000000}, Case{1.003, 1003000000}, Case{2.0, 2000000000}}) {
    SCOPED_TRACE(c.cpus);
    JobSpec job = SampleJob();
    job.limits.cpus = c.cpus;
    EXPECT_EQ(policy_.BuildCreateBody({job, kWorkspace, false, {}})["HostConfig"]["NanoCpus"],
              c.nano);
  }
}

TEST_F(ContainerPolicyTest, InitIsTheEntrypointAndCmdCarriesEnvAllowlistAndCommand) {
  struct Case {
    bool has_stdin;
    json cmd;
  };
  const json env = {"-e",          "PATH=/usr/local/bin:/usr/bin:/bin", "-e", "HOME=/tmp", "-e",
                    "LANG=C.UTF-8"};
  json without = env;
  for (const char* p : {"--", "python3", "-u", "/workspace/main.py", "first", "--flag", "{file}"}) {
    without.push_back(p);
  }
  json with = env;
  for (const char* p : {"-i", "/workspace/.coderunner-stdin", "--", "python3", "-u",
                        "/workspace/main.py", "first", "--flag", "{file}"}) {
    with.push_back(p);
  }
  for (const Case& c : {Case{false, without}, Case{true, with}}) {
    SCOPED_TRACE(c.has_stdin);
    json body = policy_.BuildCreateBody({job_, kWorkspace, c.has_stdin, {}});
    EXPECT_EQ(body["Entrypoint"], json({"/.coderunner-init"}));
    EXPECT_EQ(body["Cmd"], c.cmd);
    // The container's own environment is init's alone: what it must check.
    EXPECT_EQ(body["Env"],
              json({"CODERUNNER_MASKED_PATHS=/proc/acpi:/proc/kcore:/proc/keys:/proc/"
                    "latency_stats:/proc/timer_list:/proc/timer_stats:/proc/sched_debug:/proc/"
                    "scsi:/sys/firmware",
                    "CODERUNNER_READONLY_PATHS=/proc/bus:/proc/fs:/proc/irq:/proc/sys:/proc/"
                    "sysrq-trigger",
                    "CODERUNNER_REQUIRE_SECCOMP=1"}));
    EXPECT_EQ(body["Tty"], false);
    EXPECT_EQ(body["OpenStdin"], false);
    EXPECT_EQ(body["HostConfig"]["LogConfig"]["Type"], "none");
  }
}

TEST(ContainerPolicyRuntimeTest, InitEnforcesCpuTimeOnlyUnderGvisor) {
  // runsc never enforces RLIMIT_CPU; init's -c watchdog does it there.
  struct Case {
    const char* service;
    const char* job;
    bool watchdog;
  };
  const Case cases[] = {{"", "", false},     {"runc", "", false}, {"runsc", "runc", false},
                        {"runsc", "", true}, {"", "runsc", true}, {"runc", "runsc", true}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string("service '") + c.service + "' job '" + c.job + "'");
    PolicySettings settings = SampleSettings();
    settings.runtime = c.service;
    ContainerPolicy policy(settings, "inst-1");
    JobSpec job = SampleJob();
    job.runtime = c.job;
    json cmd = policy.BuildCreateBody({job, kWorkspace, true, {}})["Cmd"];
    std::vector<std::string> before_command;  // Init's own options.
    for (const auto& part : cmd) {
      if (part == "--") break;
      before_command.push_back(part.get<std::string>());
    }
    auto at = std::find(before_command.begin(), before_command.end(), "-c");
    if (c.watchdog) {
      ASSERT_NE(at, before_command.end()) << cmd.dump();
      ASSERT_NE(at + 1, before_command.end()) << cmd.dump();
      EXPECT_EQ(*(at + 1), "2500");  // SampleJob's cpu_ms, exactly (not rounded to seconds).
    } else {
      EXPECT_EQ(at, before_command.end()) << cmd.dump();
    }
    // The job's own command follows "--" unchanged.
    EXPECT_EQ(cmd[cmd.size() - 7], "--");
  }
}

TEST_F(ContainerPolicyTest, EnvironmentIsExactlyTheAllowlist) {
  json cmd = policy_.BuildCreateBody(ctx_)["Cmd"];
  std::vector<std::string> env;
  for (size_t i = 0; i + 1 < cmd.size() && cmd[i] != "--"; ++i) {
    if (cmd[i] == "-e") env.push_back(cmd[++i]);
  }
  ASSERT_EQ(env.size(), 3u);
  EXPECT_EQ(env[0].rfind("PATH=", 0), 0u);
  EXPECT_EQ(env[1], "HOME=/tmp");
  EXPECT_EQ(env[2].rfind("LANG=", 0), 0u);
}

TEST_F(ContainerPolicyTest, LabelsImageAndRuntime) {
  json c = policy_.BuildCreateBody(ctx_);
  EXPECT_EQ(c["Image"], "coderunner/python:3.11");
  EXPECT_EQ(c["Labels"], json({{"io.coderunner.managed", "true"},
                               {"io.coderunner.instance", "inst-1"},
                               {"io.coderunner.job", "job-abc"},
                               {"io.coderunner.language", "python"}}));
  EXPECT_FALSE(c["HostConfig"].contains("Runtime"));

  PolicySettings s = SampleSettings();
  s.runtime = "runsc";
  ContainerPolicy gvisor(s, "inst-1");
  EXPECT_EQ(gvisor.BuildCreateBody(ctx_)["HostConfig"]["Runtime"], "runsc");
}

TEST(ContainerPolicyRuntimeTest, JobRuntimeWinsOverTheServiceDefault) {
  struct Case {
    const char* service;  // sandbox.runtime.
    const char* job;      // JobSpec::runtime (tier or language).
    const char* want;     // HostConfig.Runtime; "" = field absent.
  };
  const Case cases[] = {
      {"", "", ""},
      {"runsc", "", "runsc"},
      {"runc", "", "runc"},
      {"", "runsc", "runsc"},
      {"", "runc", "runc"},  // Sent by name: both engines know runc.
      {"runc", "runsc", "runsc"},
      {"runsc", "runc", "runc"},
      {"runsc", "runsc", "runsc"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string("service '") + c.service + "' job '" + c.job + "'");
    PolicySettings settings = SampleSettings();
    settings.runtime = c.service;
    ContainerPolicy policy(settings, "inst-1");
    JobSpec job = SampleJob();
    job.runtime = c.job;
    ContainerContext ctx{job, kWorkspace, false, {}};
    json host = policy.BuildCreateBody(ctx)["HostConfig"];
    EXPECT_EQ(policy.RuntimeOf(job), c.want);
    if (std::string(c.want).empty()) {
      EXPECT_FALSE(host.contains("Runtime")) << host.dump();
    } else {
      EXPECT_EQ(host["Runtime"], c.want);
    }
    // The runtime changes nothing else of the policy.
    EXPECT_EQ(host["NetworkMode"], "none");
    EXPECT_EQ(host["ReadonlyRootfs"], true);
    EXPECT_EQ(host["CapDrop"], json::array({"ALL"}));
  }
}

TEST_F(ContainerPolicyTest, VerifyAcceptsInspectMadeFromTheSameSettings) {
  json inspect = InspectFrom(policy_.BuildCreateBody(ctx_), kWorkspace);
  Status s = VerifyNoThrow(ctx_, inspect);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(ContainerPolicyTest, VerifyAcceptsRealEnginesInspectOfAPolicyContainer) {
  PolicySettings settings = SampleSettings();
  settings.init_host_path = kRecordedInit;
  ContainerPolicy policy(settings, "rec");
  JobSpec job = RecordedJob();
  ContainerContext ctx{job, kRecordedWorkspace, true, {}};
  for (const char* engine : {"docker", "podman"}) {
    SCOPED_TRACE(engine);
    testutil::Recording r = testutil::LoadRecording(engine, "container_inspect_policy");
    ASSERT_EQ(r.response.status, 200);
    Status s = policy.Verify(ctx, r.body);
    EXPECT_TRUE(s.ok()) << s.ToString();
    // The recorded create body is what BuildCreateBody sent.
    testutil::Recording create = testutil::LoadRecording(engine, "container_create_policy");
    EXPECT_EQ(nlohmann::json::parse(create.request.body)["HostConfig"]["Memory"], 128LL << 20);
    // And the real inspect body is rejected once weakened.
    json weakened = r.body;
    weakened["HostConfig"]["NetworkMode"] = "bridge";
    EXPECT_EQ(policy.Verify(ctx, weakened).reason(), "policy_not_applied");
  }
}

TEST_F(ContainerPolicyTest, VerifyAcceptsPodmanSpellings) {
  json inspect = InspectFrom(policy_.BuildCreateBody(ctx_), kWorkspace);
  inspect["Config"]["Entrypoint"] = "/.coderunner-init";
  inspect["HostConfig"]["SecurityOpt"] = {"label=disable", "no-new-privileges:true"};
  Status s = VerifyNoThrow(ctx_, inspect);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(ContainerPolicyTest, VerifyRejectsEveryWeakenedSetting) {
  struct Case {
    const char* name;
    std::function<void(json&)> weaken;
    const char* field;  // Named in the error.
  };
  const std::vector<Case> cases = {
      {"bridge network", [](json& i) { i["HostConfig"]["NetworkMode"] = "bridge"; },
       "HostConfig.NetworkMode"},
      {"host network", [](json& i) { i["HostConfig"]["NetworkMode"] = "host"; },
       "HostConfig.NetworkMode"},
      {"default network", [](json& i) { i["HostConfig"].erase("NetworkMode"); },
       "HostConfig.NetworkMode"},
      {"writable root", [](json& i) { i["HostConfig"]["ReadonlyRootfs"] = false; },
       "HostConfig.ReadonlyRootfs"},
      {"root flag missing", [](json& i) { i["HostConfig"].erase("ReadonlyRootfs"); },
       "HostConfig.ReadonlyRootfs"},
      {"writable workspace", [](json& i) { i["Mounts"][0]["RW"] = true; }, "Mounts"},
      {"workspace from elsewhere", [](json& i) { i["Mounts"][0]["Source"] = "/"; }, "Mounts"},
      {"workspace not mounted", [](json& i) { i["Mounts"].erase(size_t{0}); }, "Mounts"},
      {"no mounts", [](json& i) { i.erase("Mounts"); }, "Mounts"},
      {"root user", [](json& i) { i["Config"]["User"] = "0:0"; }, "Config.User"},
      {"empty user", [](json& i) { i["Config"]["User"] = ""; }, "Config.User"},
      {"privileged", [](json& i) { i["HostConfig"]["Privileged"] = true; },
       "HostConfig.Privileged"},
      {"new privileges allowed", [](json& i) { i["HostConfig"]["SecurityOpt"] = json::array(); },
       "HostConfig.SecurityOpt"},
      {"security opts dropped", [](json& i) { i["HostConfig"]["SecurityOpt"] = nullptr; },
       "HostConfig.SecurityOpt"},
      {"memory changed", [](json& i) { i["HostConfig"]["Memory"] = 0; }, "HostConfig.Memory"},
      {"swap allowed", [](json& i) { i["HostConfig"]["MemorySwap"] = -1; },
       "HostConfig.MemorySwap"},
      {"pids unlimited", [](json& i) { i["HostConfig"]["PidsLimit"] = 0; }, "HostConfig.PidsLimit"},
      {"pids dropped", [](json& i) { i["HostConfig"]["PidsLimit"] = nullptr; },
       "HostConfig.PidsLimit"},
      {"other entrypoint", [](json& i) { i["Config"]["Entrypoint"] = {"/bin/sh"}; },
       "Config.Entrypoint"},
      {"entrypoint dropped", [](json& i) { i["Config"].erase("Entrypoint"); }, "Config.Entrypoint"},
      {"seccomp unconfined",
       [](json& i) { i["HostConfig"]["SecurityOpt"].push_back("seccomp=unconfined"); },
       "HostConfig.SecurityOpt"},
      {"seccomp unconfined (Podman spelling)",
       [](json& i) { i["HostConfig"]["SecurityOpt"].push_back("seccomp:unconfined"); },
       "HostConfig.SecurityOpt"},
      {"a default mask dropped (Docker reports them)",
       [](json& i) {
         i["HostConfig"]["MaskedPaths"] = {"/proc/kcore", "/proc/keys"};
       },
       "HostConfig.MaskedPaths"},
      {"a read-only path dropped",
       [](json& i) { i["HostConfig"]["ReadonlyPaths"] = {"/proc/bus"}; },
       "HostConfig.ReadonlyPaths"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    json inspect = InspectFrom(policy_.BuildCreateBody(ctx_), kWorkspace);
    c.weaken(inspect);
    Status s = VerifyNoThrow(ctx_, inspect);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(s.reason(), "policy_not_applied");
    EXPECT_THAT(s.message(), HasSubstr(c.field));
  }
}

// With packages configured, every container binds the layers read-only,
// and Verify refuses one whose engine mounted them writable, from
// elsewhere, or not at all.
TEST(ContainerPolicyPackagesTest, TheLayersAreBoundReadOnlyAndVerified) {
  constexpr const char* kLayers = "/var/lib/coderunner/packages/layers";
  PolicySettings settings = SampleSettings();
  settings.packages_host_dir = kLayers;
  ContainerPolicy policy(settings, "test");
  JobSpec job = SampleJob();
  ContainerContext ctx(job, kWorkspace, false, {});
  json create = policy.BuildCreateBody(ctx);
  EXPECT_THAT(create["HostConfig"]["Binds"].dump(),
              HasSubstr(std::string(kLayers) + ":/opt/coderunner/packages:ro"));
  json inspect = InspectFrom(create, kWorkspace);
  const json layers = {{"Type", "bind"},
                       {"Source", kLayers},
                       {"Destination", "/opt/coderunner/packages"},
                       {"RW", false}};
  inspect["Mounts"].push_back(layers);
  EXPECT_TRUE(policy.Verify(ctx, inspect).ok()) << policy.Verify(ctx, inspect).ToString();
  const std::vector<std::pair<const char*, std::function<void(json&)>>> weakened = {
      {"writable", [](json& m) { m["RW"] = true; }},
      {"from elsewhere", [](json& m) { m["Source"] = "/"; }},
      {"not mounted", [](json& m) { m["Destination"] = "/elsewhere"; }},
  };
  for (const auto& [name, weaken] : weakened) {
    SCOPED_TRACE(name);
    json bad = inspect;
    weaken(bad["Mounts"].back());
    Status s = policy.Verify(ctx, bad);
    EXPECT_EQ(s.reason(), "policy_not_applied");
  }
}

TEST_F(ContainerPolicyTest, VerifyRejectsNonObjectInspectWithoutThrowing) {
  for (const json& inspect : {json(nullptr), json::array(), json("x"), json::object()}) {
    SCOPED_TRACE(inspect.dump());
    EXPECT_EQ(VerifyNoThrow(ctx_, inspect).reason(), "policy_not_applied");
  }
}

TEST_F(ContainerPolicyTest, OutputIsTheOnlyWritableBindAndInitPolicesIt) {
  struct Case {
    const char* what;
    OutputMount output;
    json binds_extra;  // The /output bind, or nothing.
    json init_args;    // What precedes "--" after the environment.
    int64_t fsize;
  };
  const Case cases[] = {
      {"none", {}, json::array(), json::array(), 16LL << 20},
      {"artifacts",
       {"/var/lib/coderunner/artifacts/job-abc", false, 100 << 20, 10 << 20, 1000, ""},
       {"/var/lib/coderunner/artifacts/job-abc:/output:rw"},
       {"-o", "/output", "-q", std::to_string(100 << 20), "-f", std::to_string(10 << 20), "-n",
        "1000"},
       16LL << 20},  // RLIMIT_FSIZE: the larger of /tmp's size and the per-file cap.
      {"volume",
       {"coderunner-vol-1", true, 64 << 20, 0, 10000, ""},
       {"coderunner-vol-1:/output:rw"},
       {"-o", "/output", "-q", std::to_string(64 << 20), "-n", "10000", "-r"},
       64LL << 20},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ContainerContext ctx{job_, kWorkspace, false, c.output};
    json body = policy_.BuildCreateBody(ctx);
    json binds = {std::string(kWorkspace) + ":/workspace:ro",
                  std::string(kInit) + ":/.coderunner-init:ro"};
    for (const auto& b : c.binds_extra) binds.push_back(b);
    EXPECT_EQ(body["HostConfig"]["Binds"], binds);
    json cmd = body["Cmd"];
    json before_dashes = json::array();
    for (size_t i = 6; i < cmd.size() && cmd[i] != "--"; ++i) before_dashes.push_back(cmd[i]);
    EXPECT_EQ(before_dashes, c.init_args);
    for (const auto& u : body["HostConfig"]["Ulimits"]) {
      if (u["Name"] == "fsize") {
        EXPECT_EQ(u["Soft"], c.fsize);
      }
    }
  }
}

TEST(ContainerPolicyRuntimeTest, InitChecksOutputIsNosuidNodevExceptUnderGvisor) {
  // init refuses a /output whose statvfs lacks ST_NOSUID|ST_NODEV; gVisor
  // shows no mount flags at all, so there it is told not to look (-m).
  struct Case {
    const char* runtime;
    bool output;
    bool skip_check;
  };
  const Case cases[] = {
      {"", true, false}, {"runc", true, false}, {"runsc", true, true}, {"runsc", false, false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string("runtime '") + c.runtime + (c.output ? "' with" : "' without") +
                 " /output");
    PolicySettings settings = SampleSettings();
    settings.runtime = c.runtime;
    ContainerPolicy policy(settings, "inst-1");
    OutputMount out;
    if (c.output) {
      out = {"/var/lib/coderunner/artifacts/job-abc", false, 100 << 20, 10 << 20, 1000, ""};
    }
    json cmd = policy.BuildCreateBody({SampleJob(), kWorkspace, false, out})["Cmd"];
    std::vector<std::string> init_options;
    for (const auto& part : cmd) {
      if (part == "--") break;
      init_options.push_back(part.get<std::string>());
    }
    bool has_m = std::find(init_options.begin(), init_options.end(), "-m") != init_options.end();
    EXPECT_EQ(has_m, c.skip_check) << cmd.dump();
  }
}

TEST_F(ContainerPolicyTest, VerifyRefusesWritableMountsOtherThanOutput) {
  json inspect = InspectFrom(policy_.BuildCreateBody(ctx_), kWorkspace);
  EXPECT_TRUE(VerifyNoThrow(ctx_, inspect).ok());
  inspect["Mounts"].push_back(
      {{"Type", "bind"}, {"Source", "/"}, {"Destination", "/host"}, {"RW", true}});
  EXPECT_EQ(VerifyNoThrow(ctx_, inspect).reason(), "policy_not_applied");
}

TEST_F(ContainerPolicyTest, VerifyChecksLimitsOfThisJob) {
  json inspect = InspectFrom(policy_.BuildCreateBody(ctx_), kWorkspace);
  JobSpec other = SampleJob();
  other.limits.memory_bytes = 64LL << 20;
  EXPECT_EQ(VerifyNoThrow({other, kWorkspace, false, {}}, inspect).reason(), "policy_not_applied");
}

}  // namespace
}  // namespace coderunner::isolation
