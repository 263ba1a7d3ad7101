// Persistent volumes on a real engine: the /v1/volumes API, files that
// persist across jobs at /output, the size quota (stop + roll back), tier
// and tenant isolation.
#include <sys/statvfs.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "coderunner/common/sha256.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

constexpr const char* kAcme = "acme-key-0123456789";        // tier pro
constexpr const char* kInitech = "initech-key-0123456789";  // tier pro
constexpr const char* kGlobex = "globex-key-0123456789";    // tier free

class VolumesTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml(
        {{"acme", "pro", kAcme}, {"initech", "pro", kInitech}, {"globex", "free", kGlobex}});
  }

  std::string Create(const std::string& key, int64_t size, const std::string& name = "") {
    nlohmann::json body = {{"size_bytes", size}};
    if (!name.empty()) body["name"] = name;
    HttpAnswer a = server_->Call("POST", "/v1/volumes", key, body.dump());
    EXPECT_EQ(a.status, 201) << a.body;
    return a.json.is_object() ? a.json.value("id", "") : "";
  }

  // POST /v1/execute as `key`, never answered from the cache (a 200 must
  // say `cached: false`).
  HttpAnswer Run(const std::string& key, const std::string& language, const std::string& code,
                 const std::string& volume_id) {
    nlohmann::json body = {{"language", language}, {"code", code}, {"cache", false}};
    if (!volume_id.empty()) body["volume_id"] = volume_id;
    HttpAnswer a = server_->Call("POST", "/v1/execute", key, body.dump());
    if (a.status == 200) {
      EXPECT_EQ(a.json.value("cached", true), false) << a.body.substr(0, 500);
    }
    return a;
  }

  std::string VolumeDir(const std::string& id) const { return server_->volumes_dir() + "/" + id; }
};

TEST_F(VolumesTest, FilesPersistAcrossJobsAndCanBeListedAndDownloaded) {
  std::string id = Create(kAcme, 4 << 20, "notebook");
  ASSERT_EQ(id.size(), 28u) << id;
  EXPECT_TRUE(std::filesystem::is_directory(VolumeDir(id)));

  HttpAnswer first = Run(kAcme, "python",
                         "import os\nos.makedirs('/output/data', exist_ok=True)\n"
                         "open('/output/data/count.txt','w').write('1')\nprint('wrote')\n",
                         id);
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.json["status"], "succeeded") << first.body;
  EXPECT_EQ(first.json["volume"]["id"], id);
  // Volume jobs keep their files in the volume, not as artifacts.
  EXPECT_EQ(first.json["artifacts"], nlohmann::json::array());

  HttpAnswer second = Run(kAcme, "bash",
                          "c=$(cat /output/data/count.txt); echo -n $((c+1)) > "
                          "/output/data/count.txt; echo was $c",
                          id);
  EXPECT_EQ(second.json["status"], "succeeded") << second.body;
  EXPECT_EQ(second.json["stdout"], "was 1\n");

  HttpAnswer files = server_->Call("GET", "/v1/volumes/" + id + "/files", kAcme);
  ASSERT_EQ(files.status, 200) << files.body;
  ASSERT_EQ(files.json["files"].size(), 1u) << files.body;
  EXPECT_EQ(files.json["files"][0]["path"], "data/count.txt");
  EXPECT_EQ(files.json["files"][0]["size"], 1);
  // used_bytes is what counts against the quota: what the disk holds, as du
  // counts it (data/ and data/count.txt, a block each on ext4).
  const int64_t du = DiskBytesBelow(VolumeDir(id));
  EXPECT_GT(du, 1);
  EXPECT_EQ(files.json["used_bytes"], du);
  EXPECT_EQ(files.json["files"][0]["disk_bytes"], DiskBytesBelow(VolumeDir(id) + "/data"));
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + id + "/files/data/count.txt", kAcme).body, "2");
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + id + "/files/data/nope", kAcme).status, 404);
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + id + "/files/%2e%2e/x", kAcme).status, 400);

  HttpAnswer got = server_->Call("GET", "/v1/volumes/" + id, kAcme);
  EXPECT_EQ(got.json["name"], "notebook");
  EXPECT_EQ(got.json["size_bytes"], 4 << 20);
  EXPECT_EQ(got.json["used_bytes"], du);
  HttpAnswer list = server_->Call("GET", "/v1/volumes", kAcme);
  ASSERT_EQ(list.json["volumes"].size(), 1u) << list.body;
  EXPECT_EQ(list.json["volumes"][0]["id"], id);

  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + id, kAcme).status, 200);
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + id, kAcme).status, 404);
  EXPECT_FALSE(std::filesystem::exists(VolumeDir(id)));
  HttpAnswer gone = Run(kAcme, "python", "print(1)", id);
  EXPECT_EQ(gone.status, 404) << gone.body;
}

TEST_F(VolumesTest, AnotherTenantsVolumeAndArtifactsAre404) {
  std::string id = Create(kAcme, 1 << 20);
  for (const char* method : {"GET", "DELETE"}) {
    EXPECT_EQ(server_->Call(method, "/v1/volumes/" + id, kInitech).status, 404) << method;
  }
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + id + "/files", kInitech).status, 404);
  EXPECT_EQ(server_->Call("GET", "/v1/volumes", kInitech).json["volumes"].size(), 0u);
  HttpAnswer job = Run(kInitech, "python", "print(1)", id);
  EXPECT_EQ(job.status, 404) << job.body;
  EXPECT_EQ(job.json["error"]["code"], "volume_not_found");

  HttpAnswer art = Run(kAcme, "python", "open('/output/secret','w').write('s')", "");
  std::string job_id = art.json["id"];
  EXPECT_EQ(server_->Call("GET", "/v1/jobs/" + job_id + "/artifacts/secret", kAcme).body, "s");
  EXPECT_EQ(server_->Call("GET", "/v1/jobs/" + job_id + "/artifacts/secret", kInitech).status, 404);
  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + id, kAcme).status, 200);
}

TEST_F(VolumesTest, FreeTierGets403ForVolumes) {
  HttpAnswer create = server_->Call("POST", "/v1/volumes", kGlobex, R"({"size_bytes":1024})");
  EXPECT_EQ(create.status, 403) << create.body;
  EXPECT_NE(create.json["error"]["message"].get<std::string>().find("free"), std::string::npos);
  std::string id = Create(kAcme, 1 << 20);
  // 403 whatever the id: a free tenant learns nothing about other ids.
  for (const std::string& vid : {id, std::string("vol-000000000000000000000000")}) {
    HttpAnswer job = Run(kGlobex, "python", "print(1)", vid);
    EXPECT_EQ(job.status, 403) << job.body;
  }
  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + id, kAcme).status, 200);
}

TEST_F(VolumesTest, BadVolumeRequestsAreRefused) {
  struct Case {
    const char* body;
    int status;
  };
  for (const Case& c :
       {Case{"{}", 400}, Case{R"({"size_bytes":0})", 400}, Case{R"({"size_bytes":"1"})", 400},
        Case{R"({"size_bytes":1,"x":1})", 400}, Case{R"({"size_bytes":1,"name":"../x"})", 400},
        Case{"[", 400}, Case{R"({"size_bytes":1099511627776})", 422}}) {
    SCOPED_TRACE(c.body);
    EXPECT_EQ(server_->Call("POST", "/v1/volumes", kAcme, c.body).status, c.status);
  }
  EXPECT_EQ(server_->Call("POST", "/v1/volumes", "", R"({"size_bytes":1})").status, 401);
}

TEST_F(VolumesTest, QuotaStopsTheJobAndRollsBackItsWrites) {
  std::string id = Create(kAcme, 4 << 20);
  HttpAnswer keep = Run(kAcme, "bash", "echo kept > /output/keep.txt", id);
  EXPECT_EQ(keep.json["status"], "succeeded") << keep.body;
  HttpAnswer bomb = Run(kAcme, "python", HostileProgram("volume_quota_bomb.py"), id);
  ASSERT_EQ(bomb.status, 200) << bomb.body;
  EXPECT_EQ(bomb.json["status"], "failed") << bomb.body;
  EXPECT_EQ(bomb.json["error"]["code"], "volume_quota_exceeded") << bomb.body;
  EXPECT_LE(bomb.json["volume"]["used_bytes"].get<int64_t>(), 4 << 20);
  HttpAnswer files = server_->Call("GET", "/v1/volumes/" + id + "/files", kAcme);
  ASSERT_EQ(files.json["files"].size(), 1u) << files.body;
  EXPECT_EQ(files.json["files"][0]["path"], "keep.txt");
  EXPECT_LE(files.json["used_bytes"].get<int64_t>(), 4 << 20);
  // The volume still works afterwards.
  HttpAnswer after = Run(kAcme, "bash", "cat /output/keep.txt", id);
  EXPECT_EQ(after.json["stdout"], "kept\n") << after.body;
  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + id, kAcme).status, 200);
}

// The disk attacks (tests/hostile/disk_*) into a volume: its quota counts
// what the host's disk holds (allocated blocks, a file at least its size,
// directories too), so after each run the volume's directory stays within
// size_bytes as du counts it, the run's writes are rolled back, and the
// files of earlier runs are intact.
TEST_F(VolumesTest, DiskAttacksStayWithinTheQuotaInAllocatedBytes) {
  constexpr int64_t kQuota = 1 << 20;
  std::string id = Create(kAcme, kQuota);
  // Every run without the result cache (volume jobs never use it anyway).
  auto run = [&](const std::string& language, const std::string& code) {
    nlohmann::json body = {
        {"language", language}, {"code", code}, {"volume_id", id}, {"cache", false}};
    body["limits"] = {{"timeout_ms", 30000}};
    HttpAnswer a = server_->Call("POST", "/v1/execute", kAcme, body.dump());
    EXPECT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json.value("cached", true), false) << a.body.substr(0, 500);
    return a.json;
  };
  ASSERT_EQ(run("bash", "echo kept > /output/keep.txt")["status"], "succeeded");
  struct Attack {
    const char* file;
    const char* language;
    std::string error_code;  // "" = no bound broken (the filter refused the call).
    std::string not_kept;
    std::string must_have;  // In stdout.
  };
  const Attack attacks[] = {
      {"disk_fallocate_keep_size.sh", "bash", "", "",
       "fallocate failed: keep size mode is unsupported"},
      {"disk_fallocate_extend.py", "python", "volume_quota_exceeded", "extend.bin",
       "fallocate mode=0 rc=-1 errno=95 (Operation not supported)"},
      {"disk_sparse_file.py", "python", "volume_quota_exceeded", "sparse.bin", ""},
      {"disk_truncate.sh", "bash", "volume_quota_exceeded", "t.bin", "truncate 3G rc=1"},
      {"disk_grow_file.py", "python", "volume_quota_exceeded", "grow.bin", ""},
      // 2000 one-byte files: 2000 bytes by size, 8 MB by blocks.
      {"disk_small_files.py", "python", "volume_quota_exceeded", "s00000", ""},
  };
  for (const Attack& a : attacks) {
    SCOPED_TRACE(a.file);
    nlohmann::json r = run(a.language, HostileProgram(a.file));
    const std::string out = r.value("stdout", "");
    EXPECT_EQ(r["status"], a.error_code.empty() ? "succeeded" : "failed") << r.dump(1);
    std::string code = r["error"].is_object() ? r["error"].value("code", "") : "";
    EXPECT_EQ(code, a.error_code) << r["error"].dump();
    if (!a.must_have.empty()) {
      EXPECT_NE(out.find(a.must_have), std::string::npos) << out;
    }
    EXPECT_EQ(out.find("NOT STOPPED"), std::string::npos) << out;
    // On the host, as du counts it: within the quota, the run's writes
    // gone, the earlier run's file intact.
    EXPECT_LE(DiskBytesBelow(VolumeDir(id)), kQuota);
    EXPECT_LE(r["volume"]["used_bytes"].get<int64_t>(), kQuota) << r["volume"].dump();
    if (!a.not_kept.empty()) {
      EXPECT_FALSE(std::filesystem::exists(VolumeDir(id) + "/" + a.not_kept));
    }
    HttpAnswer files = server_->Call("GET", "/v1/volumes/" + id + "/files", kAcme);
    EXPECT_LE(files.json["used_bytes"].get<int64_t>(), kQuota) << files.body.substr(0, 500);
    nlohmann::json after = run("bash", "cat /output/keep.txt");
    EXPECT_EQ(after["stdout"], "kept\n") << after.dump();
    EXPECT_EQ(after["status"], "succeeded");
  }
  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + id, kAcme).status, 200);
}

TEST_F(VolumesTest, AVolumeIsMountedNosuidNodev) {
  std::string id = Create(kAcme, 1 << 20);
  nlohmann::json body = {{"language", "python"},
                         {"code", HostileProgram("output_setuid_plant.py")},
                         {"volume_id", id},
                         {"cache", false}};
  HttpAnswer r = server_->Call("POST", "/v1/execute", kAcme, body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json.value("cached", true), false);
  EXPECT_EQ(r.json["status"], "succeeded") << r.body;
  // gVisor shows no mount flags inside the sandbox; the host mount does.
  if (RuntimeUnderTest() != "runsc") {
    EXPECT_NE(r.json["stdout"].get<std::string>().find("nosuid=1 nodev=1"), std::string::npos)
        << r.body;
  }
  struct statvfs vfs;
  ASSERT_EQ(statvfs(VolumeDir(id).c_str(), &vfs), 0);
  EXPECT_EQ(vfs.f_flag & (ST_NOSUID | ST_NODEV), ST_NOSUID | ST_NODEV);
  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + id, kAcme).status, 200);
}

TEST_F(VolumesTest, DeletingAVolumeInUseIs409) {
  std::string id = Create(kAcme, 1 << 20);
  // The job marks the volume once it runs, then holds it until the test
  // drops a stop file into it (or a minute passes).
  nlohmann::json body = {
      {"language", "bash"},
      {"code",
       "echo > /output/started\n"
       "for ((i = 0; i < 600; i++)); do [[ -e /output/stop ]] && break; sleep 0.1; done\n"},
      {"volume_id", id},
      {"cache", false},
      {"limits", {{"timeout_ms", 60000}}}};
  HttpAnswer job = server_->Call("POST", "/v1/jobs", kAcme, body.dump());
  ASSERT_EQ(job.status, 202) << job.body;
  std::string job_id = job.json["id"];
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(VolumeDir(id) + "/started"); }));
  HttpAnswer busy = server_->Call("DELETE", "/v1/volumes/" + id, kAcme);
  EXPECT_EQ(busy.status, 409) << busy.body;
  std::ofstream(VolumeDir(id) + "/stop") << "stop";
  HttpAnswer done = server_->Call("GET", "/v1/jobs/" + job_id + "/wait?timeout_s=120", kAcme);
  EXPECT_EQ(done.json["status"], "succeeded") << done.body;
  EXPECT_EQ(server_->Call("DELETE", "/v1/volumes/" + id, kAcme).status, 200);
}

}  // namespace
}  // namespace coderunner::testing
