#include "coderunner/volumes/volume_service.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "engine/resource_util.h"
#include "unit/engine/fake_transport.h"

namespace coderunner::volumes {
namespace {

using nlohmann::json;
using testutil::FakeTransport;

constexpr const char* kId = "vol-0123456789abcdef01234567";

class VolumeServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-volsvc-XXXXXX";
    root_ = mkdtemp(tmpl);
    config_ = config::DefaultConfig();
    config_.instance = "unit";
    config_.volumes.dir = root_ + "/volumes";
    config_.volumes.max_per_tenant = 2;
    config_.volumes.max_size_bytes = 1 << 20;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // The engine's view of a volume as VolumeService creates it.
  json EngineVolume(const std::string& id, const std::string& tenant,
                    const std::string& instance = "unit", std::string device = "") {
    if (device.empty()) device = config_.volumes.dir + "/" + id;
    return {{"Name", "coderunner-" + id},
            {"Driver", "local"},
            {"Mountpoint", "/var/lib/x/_data"},
            {"Labels",
             {{"io.coderunner.managed", "true"},
              {"io.coderunner.instance", instance},
              {"io.coderunner.tenant", tenant},
              {"io.coderunner.volume", id},
              {"io.coderunner.size_bytes", "4096"},
              {"io.coderunner.name", "n"},
              {"io.coderunner.created_at", "1700000000000"}}},
            {"Options", {{"type", "none"}, {"o", "bind"}, {"device", device}}}};
  }

  std::string ListPath(const std::string& tenant) {
    return "/volumes?" + engine::LabelFilterQuery({{"io.coderunner.managed", "true"},
                                                   {"io.coderunner.instance", "unit"},
                                                   {"io.coderunner.tenant", tenant}});
  }

  const config::TierConfig* Tier(const char* name) { return config_.FindTier(name); }

  std::string root_;
  config::Config config_;
  FakeTransport t_;
  engine::VolumeClient client_{t_, std::chrono::milliseconds(500)};
  isolation::UidPool uids_{3000000, 16};
};

TEST_F(VolumeServiceTest, CreateRefusesTiersWithoutVolumesBeforeTouchingTheEngine) {
  VolumeService svc(config_, client_, uids_);
  for (const config::TierConfig* tier :
       {Tier("free"), static_cast<const config::TierConfig*>(nullptr)}) {
    auto v = svc.Create("acme", tier, VolumeRequest{"", 10});
    EXPECT_EQ(v.status().reason(), "forbidden");
  }
  EXPECT_TRUE(t_.requests().empty());
}

TEST_F(VolumeServiceTest, CreateHoldsTheSizeToTheConfiguredMaximum) {
  VolumeService svc(config_, client_, uids_);
  EXPECT_EQ(svc.Create("acme", Tier("pro"), VolumeRequest{"", 1048577}).status().reason(),
            "limit_exceeded");
  EXPECT_TRUE(t_.requests().empty());
}

TEST(CheckVolumesAllowedTest, OnlyTiersWithVolumes) {
  config::TierConfig with;
  with.name = "pro";
  with.volumes = true;
  config::TierConfig without;
  without.name = "free";
  EXPECT_TRUE(CheckVolumesAllowed(&with).ok());
  EXPECT_EQ(CheckVolumesAllowed(&without).reason(), "forbidden");
  EXPECT_EQ(CheckVolumesAllowed(nullptr).reason(), "forbidden");
}

TEST_F(VolumeServiceTest, CreateMakesAJobOwnedDirectoryAndABindVolume) {
  t_.AnswerJson("GET", ListPath("acme"), 200, {{"Volumes", json::array()}});
  t_.AnswerJson("POST", "/volumes/create", 201, json::object());
  VolumeService svc(config_, client_, uids_);
  auto v = svc.Create("acme", Tier("pro"), VolumeRequest{"data", 4096});
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->id.size(), 28u);
  EXPECT_EQ(v->engine_name, "coderunner-" + v->id);
  struct stat st;
  ASSERT_EQ(lstat(v->host_dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  // A uid of its own, from the pool, recorded in its labels and kept.
  EXPECT_TRUE(uids_.Contains(v->uid)) << v->uid;
  EXPECT_EQ(st.st_uid, static_cast<uid_t>(v->uid));
  EXPECT_EQ(st.st_gid, static_cast<gid_t>(v->uid));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(uids_.in_use(), 1);
  json sent = json::parse(t_.last_request().body);
  EXPECT_EQ(sent["Labels"]["io.coderunner.uid"], std::to_string(v->uid));
  EXPECT_EQ(sent["DriverOpts"], json({{"type", "none"}, {"device", v->host_dir}, {"o", "bind"}}));
  EXPECT_EQ(sent["Labels"]["io.coderunner.tenant"], "acme");
  EXPECT_EQ(sent["Labels"]["io.coderunner.size_bytes"], "4096");
  EXPECT_EQ(sent["Labels"]["io.coderunner.name"], "data");
}

TEST_F(VolumeServiceTest, CreateStopsAtThePerTenantCap) {
  t_.AnswerJson("GET", ListPath("acme"), 200,
                {{"Volumes",
                  {EngineVolume("vol-000000000000000000000001", "acme"),
                   EngineVolume("vol-000000000000000000000002", "acme")}}});
  VolumeService svc(config_, client_, uids_);
  EXPECT_EQ(svc.Create("acme", Tier("pro"), VolumeRequest{"", 1}).status().reason(),
            "too_many_volumes");
}

TEST_F(VolumeServiceTest, CreateRemovesItsDirectoryWhenTheEngineFails) {
  t_.AnswerJson("GET", ListPath("acme"), 200, {{"Volumes", json::array()}});
  t_.AnswerJson("POST", "/volumes/create", 500, {{"message", "boom"}});
  VolumeService svc(config_, client_, uids_);
  EXPECT_FALSE(svc.Create("acme", Tier("pro"), VolumeRequest{"", 1}).ok());
  EXPECT_TRUE(std::filesystem::is_empty(config_.volumes.dir));
}

TEST_F(VolumeServiceTest, GetOnlyReturnsTheTenantsOwnGenuineVolumes) {
  struct Case {
    const char* what;
    json engine;
    bool found;
  };
  const std::string path = "/volumes/coderunner-" + std::string(kId);
  const Case cases[] = {
      {"own", EngineVolume(kId, "acme"), true},
      {"other tenant", EngineVolume(kId, "initech"), false},
      {"other instance", EngineVolume(kId, "acme", "other"), false},
      {"look-alike bound elsewhere", EngineVolume(kId, "acme", "unit", "/etc"), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    FakeTransport t;
    engine::VolumeClient client(t, std::chrono::milliseconds(500));
    t.AnswerJson("GET", path, 200, c.engine);
    VolumeService svc(config_, client, uids_);
    auto v = svc.Get("acme", kId);
    EXPECT_EQ(v.ok(), c.found) << v.status().ToString();
    if (!v.ok()) {
      EXPECT_EQ(v.status().reason(), "volume_not_found");
    }
  }
}

TEST_F(VolumeServiceTest, ListKeepsOnlyTheTenantsVolumesWhateverTheEngineFilterDid) {
  // Podman 4.3 ORs label filters on /volumes, so the answer may hold other
  // tenants' and other instances' volumes.
  t_.AnswerJson("GET", ListPath("acme"), 200,
                {{"Volumes",
                  {EngineVolume("vol-000000000000000000000002", "acme"),
                   EngineVolume("vol-000000000000000000000003", "initech"),
                   EngineVolume("vol-000000000000000000000004", "acme", "other-instance"),
                   {{"Name", "crtest-vol1"}, {"Labels", {{"io.coderunner.tenant", "acme"}}}}}}});
  VolumeService svc(config_, client_, uids_);
  auto list = svc.List("acme");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].id, "vol-000000000000000000000002");
}

TEST_F(VolumeServiceTest, MalformedIdsAreNotFoundWithoutAnEngineCall) {
  VolumeService svc(config_, client_, uids_);
  for (const char* id : {"", "vol-", "vol-xyz", "vol-0123456789ABCDEF01234567", "../etc",
                         "vol-0123456789abcdef01234567/../x"}) {
    SCOPED_TRACE(id);
    EXPECT_EQ(svc.Get("acme", id).status().reason(), "volume_not_found");
  }
  EXPECT_TRUE(t_.requests().empty());
}

TEST_F(VolumeServiceTest, ResolveChecksTheTierFirstThenOwnership) {
  t_.AnswerJson("GET", "/volumes/coderunner-" + std::string(kId), 200, EngineVolume(kId, "acme"));
  VolumeService svc(config_, client_, uids_);
  EXPECT_EQ(svc.Resolve("acme", Tier("free"), kId).status().reason(), "forbidden");
  EXPECT_TRUE(t_.requests().empty());
  EXPECT_EQ(svc.Resolve("initech", Tier("pro"), kId).status().reason(), "volume_not_found");
  auto m = svc.Resolve("acme", Tier("pro"), kId);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->engine_name, "coderunner-" + std::string(kId));
  EXPECT_EQ(m->quota_bytes, 4096);
  EXPECT_EQ(m->max_files, config_.volumes.max_files);
}

TEST_F(VolumeServiceTest, DeleteInUseKeepsTheFiles) {
  const std::string dir = config_.volumes.dir + "/" + kId;
  std::filesystem::create_directories(dir);
  t_.AnswerJson("GET", "/volumes/coderunner-" + std::string(kId), 200, EngineVolume(kId, "acme"));
  t_.AnswerJson("DELETE", "/volumes/coderunner-" + std::string(kId), 409,
                {{"message", "volume is in use"}});
  VolumeService svc(config_, client_, uids_);
  EXPECT_EQ(svc.Delete("acme", kId).reason(), "volume_in_use");
  EXPECT_TRUE(std::filesystem::exists(dir));
  t_.Answer("DELETE", "/volumes/coderunner-" + std::string(kId), 204, "");
  EXPECT_TRUE(svc.Delete("acme", kId).ok());
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace coderunner::volumes
