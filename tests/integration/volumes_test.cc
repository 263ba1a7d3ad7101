// Persistent volumes on a real engine: the /v1/volumes API, files that
// persist across jobs at /output, the size quota (stop + roll back), tier
// and tenant isolation.
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
  EXPECT_EQ(files.json["used_bytes"], 1);
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + id + "/files/data/count.txt", kAcme).body, "2");
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + id + "/files/data/nope", kAcme).status, 404);
  EXPECT_EQ(server_->Call("GET", "/v1/volumes/" + id + "/files/%2e%2e/x", kAcme).status, 400);

  HttpAnswer got = server_->Call("GET", "/v1/volumes/" + id, kAcme);
  EXPECT_EQ(got.json["name"], "notebook");
  EXPECT_EQ(got.json["size_bytes"], 4 << 20);
  EXPECT_EQ(got.json["used_bytes"], 1);
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
