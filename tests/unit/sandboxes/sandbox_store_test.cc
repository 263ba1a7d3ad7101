#include "coderunner/sandboxes/sandbox_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace coderunner::sandboxes {
namespace {

SandboxRecord Record(const std::string& id, SandboxState state) {
  SandboxRecord r;
  r.id = id;
  r.tenant = "acme";
  r.language = "python";
  r.state = state;
  r.created_at_ms = 1000;
  r.last_used_at_ms = 2000;
  r.ttl_s = 60;
  r.limits.memory_bytes = 123456789;
  r.limits.cpus = 0.5;
  r.runtime = "runc";
  r.volume_id = "vol-0123";
  r.container_id = "abc";
  r.executions = 7;
  r.restarts = 1;
  r.cpu_ms_total = 42;
  r.memory_peak_bytes = 99;
  r.stopped_reason = state == SandboxState::kStopped ? "gone" : "";
  return r;
}

class SandboxStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-sbxstore-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(SandboxStoreTest, RecordsRoundTripThroughDisk) {
  auto store = SandboxStore::Open(dir_ + "/s");
  ASSERT_TRUE(store.ok());
  for (SandboxState s : {SandboxState::kRunning, SandboxState::kStopped, SandboxState::kExpired}) {
    SandboxRecord r = Record("sbx-" + std::string(StateName(s)), s);
    ASSERT_TRUE((*store)->Put(r).ok());
  }
  auto again = SandboxStore::Open(dir_ + "/s");
  auto all = (*again)->LoadAll();
  ASSERT_EQ(all.size(), 3u);
  for (const auto& r : all) {
    SandboxRecord want = Record(r.id, r.state);
    EXPECT_EQ(RecordToJson(r), RecordToJson(want));
  }
}

TEST_F(SandboxStoreTest, PutReplacesAndDeleteRemoves) {
  auto store = SandboxStore::Open(dir_);
  SandboxRecord r = Record("sbx-a", SandboxState::kRunning);
  ASSERT_TRUE((*store)->Put(r).ok());
  r.executions = 8;
  ASSERT_TRUE((*store)->Put(r).ok());
  auto all = (*store)->LoadAll();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].executions, 8);
  ASSERT_TRUE((*store)->Delete("sbx-a").ok());
  EXPECT_TRUE((*store)->Delete("sbx-a").ok()) << "deleting twice is fine";
  EXPECT_TRUE((*store)->LoadAll().empty());
}

TEST_F(SandboxStoreTest, UnreadableFilesAreSkipped) {
  auto store = SandboxStore::Open(dir_);
  ASSERT_TRUE((*store)->Put(Record("sbx-good", SandboxState::kRunning)).ok());
  std::ofstream(dir_ + "/sbx-torn.json") << "{\"id\":";
  std::ofstream(dir_ + "/sbx-wrong.json") << "{\"id\":\"x\"}";
  std::ofstream(dir_ + "/notes.txt") << "hello";
  auto all = (*store)->LoadAll();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].id, "sbx-good");
}

TEST(SandboxRecordTest, StateNamesRoundTrip) {
  for (SandboxState s : {SandboxState::kRunning, SandboxState::kStopped, SandboxState::kExpired}) {
    EXPECT_EQ(ParseState(StateName(s)), s);
  }
  EXPECT_FALSE(ParseState("paused").has_value());
}

TEST(SandboxRecordTest, ExpiryIsLastUseplusTtl) {
  SandboxRecord r = Record("sbx-a", SandboxState::kRunning);
  EXPECT_EQ(r.expires_at_ms(), 2000 + 60 * 1000);
}

}  // namespace
}  // namespace coderunner::sandboxes
