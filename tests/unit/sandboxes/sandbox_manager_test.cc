// SandboxManager over the fake engine transport: tenant-scoped create, get
// and delete, the per-tenant caps, and expiry by TTL (driven through
// ExpireDue with an explicit clock, never by sleeping).
#include "coderunner/sandboxes/sandbox_manager.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "unit/isolation/scripted_engine.h"

namespace coderunner::sandboxes {
namespace {

constexpr int64_t kMiB = 1LL << 20;
constexpr int64_t kDayMs = 24LL * 3600 * 1000;

std::string RemovePath(const std::string& cid) { return "/containers/" + cid + "?force=1&v=1"; }

isolation::PolicySettings Settings() {
  isolation::PolicySettings s;
  s.init_host_path = "/opt/coderunner-init";
  return s;
}

class SandboxManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-sbxmgr-XXXXXX";
    root_ = mkdtemp(tmpl);
    auto store = SandboxStore::Open(root_ + "/records");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    config_ = config::DefaultConfig();
    tier_.name = "free";
    SandboxLayout layout;
    layout.workspace_root = root_ + "/ws";
    layout.output_root = root_ + "/out";
    layout.uids = &uids_;
    manager_ =
        std::make_unique<SandboxManager>(config_, containers_, policy_, *store_, nullptr, layout);
  }
  void TearDown() override {
    manager_.reset();
    std::filesystem::remove_all(root_);
  }

  auth::Principal Who(const std::string& tenant) { return {tenant, &tier_}; }

  // Creates sandbox `id` for `tenant`; the engine names its container
  // "c-<id>", applies the policy and keeps it running until removed.
  StatusOr<SandboxRecord> Create(const std::string& tenant, const std::string& id,
                                 int64_t memory_bytes = 64 * kMiB, int64_t ttl_s = 60) {
    const std::string cid = "c-" + id;
    engine_.AnswerCreatesAs(cid, /*running=*/true);
    engine_.Answer("POST", "/containers/" + cid + "/attach?stream=1&stdout=1&stderr=1", 200, "");
    engine_.Answer("POST", "/containers/" + cid + "/start", 204, "");
    engine_.Answer("DELETE", RemovePath(cid), 204, "");
    engine_.HoldAttach();
    SandboxCreateSpec create;
    create.spec.id = id;
    create.spec.language = {
        "python", "coderunner/python:3.11", "main.py", {"python3", "{file}"}, true, "", {}};
    create.spec.limits.memory_bytes = memory_bytes;
    create.ttl_s = ttl_s;
    return manager_->Create(Who(tenant), create);
  }

  std::vector<std::string> StoredIds() {
    std::vector<std::string> ids;
    for (const auto& r : store_->LoadAll()) ids.push_back(r.id);
    return ids;
  }

  std::string root_;
  testutil::ScriptedEngine engine_;
  engine::ContainerClient containers_{engine_, std::chrono::seconds(5)};
  isolation::ContainerPolicy policy_{Settings(), "inst-1"};
  isolation::UidPool uids_{isolation::kDefaultFirstJobUid, 16};
  std::unique_ptr<SandboxStore> store_;
  config::Config config_;
  config::TierConfig tier_;
  std::unique_ptr<SandboxManager> manager_;
};

TEST_F(SandboxManagerTest, CreateStartsAContainerAndStoresARunningRecord) {
  auto rec = Create("acme", "sbx-1", 64 * kMiB, 120);
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  EXPECT_EQ(rec->id, "sbx-1");
  EXPECT_EQ(rec->tenant, "acme");
  EXPECT_EQ(rec->language, "python");
  EXPECT_EQ(rec->state, SandboxState::kRunning);
  EXPECT_EQ(rec->container_id, "c-sbx-1");
  EXPECT_EQ(rec->ttl_s, 120);
  EXPECT_EQ(rec->limits.memory_bytes, 64 * kMiB);
  EXPECT_EQ(engine_.Count("POST", "/containers/create"), 1);
  EXPECT_EQ(engine_.Count("POST", "/containers/c-sbx-1/start"), 1);
  EXPECT_EQ(StoredIds(), std::vector<std::string>{"sbx-1"});
  auto got = manager_->Get("acme", "sbx-1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->container_id, "c-sbx-1");
}

TEST_F(SandboxManagerTest, CreatePastATenantCapIsRefusedWithoutTouchingTheEngine) {
  struct Case {
    const char* name;
    int max_sandboxes;
    int64_t max_memory_bytes;
    int allowed;      // Sandboxes of 64 MiB that fit.
    const char* cap;  // Named in the refusal.
  };
  const std::vector<Case> cases = {
      {"count cap", 2, 1024 * kMiB, 2, "max_sandboxes"},
      {"memory cap", 5, 150 * kMiB, 2, "max_sandbox_memory_bytes"},
      {"count cap of one", 1, 1024 * kMiB, 1, "max_sandboxes"},
  };
  for (size_t n = 0; n < cases.size(); ++n) {
    const Case& c = cases[n];
    SCOPED_TRACE(c.name);
    tier_.max_sandboxes = c.max_sandboxes;
    tier_.max_sandbox_memory_bytes = c.max_memory_bytes;
    const std::string prefix = "sbx-" + std::to_string(n) + "-";
    for (int i = 0; i < c.allowed; ++i) {
      auto ok = Create("acme", prefix + std::to_string(i));
      ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    }
    const int creates = engine_.Count("POST", "/containers/create");
    auto refused = Create("acme", prefix + "over");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
    EXPECT_EQ(refused.status().reason(), "sandbox_limit");
    EXPECT_NE(refused.status().message().find(c.cap), std::string::npos)
        << refused.status().message();
    EXPECT_NE(refused.status().message().find("free"), std::string::npos) << "names the tier";
    EXPECT_EQ(engine_.Count("POST", "/containers/create"), creates) << "nothing launched";
    EXPECT_EQ(manager_->Get("acme", prefix + "over").status().reason(), "sandbox_not_found");
    // The caps are per tenant: another tenant still has room.
    auto other = Create("globex", prefix + "other");
    EXPECT_TRUE(other.ok()) << other.status().ToString();
    // Free every slot for the next case.
    for (const auto& r : manager_->List("acme", std::nullopt, "")) {
      ASSERT_TRUE(manager_->Delete("acme", r.id).ok());
    }
    ASSERT_TRUE(manager_->Delete("globex", prefix + "other").ok());
  }
}

TEST_F(SandboxManagerTest, AnotherTenantsSandboxIsNotFound) {
  ASSERT_TRUE(Create("acme", "sbx-1").ok());
  struct Case {
    const char* name;
    std::string tenant;
    std::string id;
  };
  const std::vector<Case> cases = {
      {"another tenant", "globex", "sbx-1"},
      {"no such sandbox", "acme", "sbx-nope"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = manager_->Get(c.tenant, c.id);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(got.status().reason(), "sandbox_not_found");
    Status del = manager_->Delete(c.tenant, c.id);
    EXPECT_EQ(del.code(), StatusCode::kNotFound);
    EXPECT_EQ(del.reason(), "sandbox_not_found");
  }
  EXPECT_TRUE(manager_->List("globex", std::nullopt, "").empty());
  // The owner's sandbox is untouched.
  EXPECT_EQ(engine_.Count("DELETE", "/containers/"), 0);
  auto owned = manager_->Get("acme", "sbx-1");
  ASSERT_TRUE(owned.ok()) << owned.status().ToString();
  EXPECT_EQ(owned->state, SandboxState::kRunning);
}

TEST_F(SandboxManagerTest, DeleteRemovesTheContainerRecordAndSlot) {
  tier_.max_sandboxes = 1;
  ASSERT_TRUE(Create("acme", "sbx-1").ok());
  ASSERT_TRUE(manager_->Delete("acme", "sbx-1").ok());
  EXPECT_EQ(engine_.Count("DELETE", RemovePath("c-sbx-1")), 1);
  EXPECT_EQ(manager_->Get("acme", "sbx-1").status().reason(), "sandbox_not_found");
  EXPECT_TRUE(manager_->List("acme", std::nullopt, "").empty());
  EXPECT_TRUE(StoredIds().empty());
  EXPECT_EQ(uids_.in_use(), 0);
  EXPECT_EQ(manager_->Delete("acme", "sbx-1").reason(), "sandbox_not_found") << "deleted once";
  // Its slot is free again.
  auto next = Create("acme", "sbx-2");
  EXPECT_TRUE(next.ok()) << next.status().ToString();
}

TEST_F(SandboxManagerTest, ExpireDueExpiresAtTheTtlAndForgetsADayLater) {
  tier_.max_sandboxes = 1;
  auto rec = Create("acme", "sbx-1", 64 * kMiB, /*ttl_s=*/60);
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  const int64_t due = rec->last_used_at_ms + 60 * 1000;

  EXPECT_EQ(manager_->ExpireDue(due - 1), 0) << "not before its TTL";
  EXPECT_EQ(manager_->Get("acme", "sbx-1")->state, SandboxState::kRunning);
  EXPECT_EQ(engine_.Count("DELETE", RemovePath("c-sbx-1")), 0);

  EXPECT_EQ(manager_->ExpireDue(due), 1);
  auto expired = manager_->Get("acme", "sbx-1");
  ASSERT_TRUE(expired.ok()) << "an expired sandbox stays listable";
  EXPECT_EQ(expired->state, SandboxState::kExpired);
  EXPECT_EQ(expired->ended_at_ms, due);
  EXPECT_TRUE(expired->container_id.empty());
  EXPECT_EQ(engine_.Count("DELETE", RemovePath("c-sbx-1")), 1);
  EXPECT_EQ(uids_.in_use(), 0);
  auto stored = store_->LoadAll();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].state, SandboxState::kExpired);
  EXPECT_EQ(manager_->ExpireDue(due + 1), 0) << "expired once";

  // An expired sandbox holds no slot.
  auto next = Create("acme", "sbx-2", 64 * kMiB, /*ttl_s=*/7 * 86400);
  ASSERT_TRUE(next.ok()) << next.status().ToString();

  // A day after it ended, the record is forgotten (the running one stays).
  EXPECT_EQ(manager_->ExpireDue(due + kDayMs - 1), 0);
  EXPECT_TRUE(manager_->Get("acme", "sbx-1").ok());
  manager_->ExpireDue(due + kDayMs);
  EXPECT_EQ(manager_->Get("acme", "sbx-1").status().reason(), "sandbox_not_found");
  EXPECT_EQ(StoredIds(), std::vector<std::string>{"sbx-2"});
}

}  // namespace
}  // namespace coderunner::sandboxes
