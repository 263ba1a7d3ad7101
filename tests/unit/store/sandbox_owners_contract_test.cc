// The SandboxOwners contract (sandbox_owners.h): place, replace, tenant
// scoping, forget, validation, and two stores on one database seeing each
// other's placements. Runs over every FleetBackends() backend (a single
// node's SQLite store keeps no SandboxOwners).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "coderunner/store/sandbox_owners.h"
#include "job_store_contract.h"

namespace coderunner::store {
namespace {

class SandboxOwnersContractTest : public JobStoreContractFixture {
 protected:
  // The SandboxOwners of `store` (default store_).
  SandboxOwners& Owners(JobStore* store = nullptr) {
    SandboxOwners* owners = Parts(store).sandbox_owners;
    EXPECT_NE(owners, nullptr) << GetParam().name << " keeps no SandboxOwners";
    return *owners;
  }
  void MustPlace(const SandboxPlacement& p, JobStore* store = nullptr) {
    Status s = Owners(store).PlaceSandbox(p);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // The node holding `id` for `tenant`, "" when none.
  std::string NodeOf(const std::string& id, const std::string& tenant, JobStore* store = nullptr) {
    auto owner = Owners(store).SandboxOwner(id, tenant);
    EXPECT_TRUE(owner.ok()) << owner.status().ToString();
    return owner.ok() && owner->has_value() ? (*owner)->node : "";
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, SandboxOwnersContractTest, ::testing::ValuesIn(FleetBackends()),
                         BackendName);

SandboxPlacement Placement(const std::string& id, const std::string& node,
                           const std::string& tenant = "acme", int64_t created_ms = 1000) {
  return SandboxPlacement{id, tenant, node, created_ms};
}

TEST_P(SandboxOwnersContractTest, PlaceThenReadEveryField) {
  MustPlace(Placement("sbx-1", "node-a", "acme", 1234));
  auto owner = Owners().SandboxOwner("sbx-1", "acme");
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  ASSERT_TRUE(owner->has_value());
  EXPECT_EQ((*owner)->id, "sbx-1");
  EXPECT_EQ((*owner)->tenant, "acme");
  EXPECT_EQ((*owner)->node, "node-a");
  EXPECT_EQ((*owner)->created_ms, 1234);
}

TEST_P(SandboxOwnersContractTest, LookupsAreTenantScopedAndUnknownIsEmpty) {
  MustPlace(Placement("sbx-1", "node-a", "acme"));
  MustPlace(Placement("sbx-2", "node-b", "globex"));
  struct Case {
    const char* id;
    const char* tenant;
    const char* want_node;  // "" = no placement.
  };
  const Case cases[] = {
      {"sbx-1", "acme", "node-a"}, {"sbx-2", "globex", "node-b"},
      {"sbx-1", "globex", ""},  // Another tenant's: looks absent.
      {"sbx-2", "acme", ""},       {"sbx-none", "acme", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.id) + "/" + c.tenant);
    EXPECT_EQ(NodeOf(c.id, c.tenant), c.want_node);
  }
}

// PlacementOf names no tenant: every tenant's placement, an unknown id none.
TEST_P(SandboxOwnersContractTest, PlacementOfReadsAnyTenantsPlacement) {
  MustPlace(Placement("sbx-1", "node-a", "acme"));
  MustPlace(Placement("sbx-2", "node-b", "globex"));
  struct Case {
    const char* id;
    const char* want_node;    // "" = no placement.
    const char* want_tenant;  // The tenant the placement carries.
  };
  const Case cases[] = {
      {"sbx-1", "node-a", "acme"}, {"sbx-2", "node-b", "globex"}, {"sbx-none", "", ""}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.id);
    auto placed = Owners().PlacementOf(c.id);
    ASSERT_TRUE(placed.ok()) << placed.status().ToString();
    EXPECT_EQ(placed->has_value() ? (*placed)->node : "", c.want_node);
    EXPECT_EQ(placed->has_value() ? (*placed)->tenant : "", c.want_tenant);
  }
}

TEST_P(SandboxOwnersContractTest, PlacingAgainReplacesTheNode) {
  MustPlace(Placement("sbx-1", "node-a", "acme", 100));
  MustPlace(Placement("sbx-1", "node-b", "acme", 200));
  auto owner = Owners().SandboxOwner("sbx-1", "acme");
  ASSERT_TRUE(owner.ok() && owner->has_value());
  EXPECT_EQ((*owner)->node, "node-b");
  EXPECT_EQ((*owner)->created_ms, 200);
}

TEST_P(SandboxOwnersContractTest, ForgetRemovesOnlyThatSandboxAndUnknownIsOk) {
  MustPlace(Placement("sbx-1", "node-a"));
  MustPlace(Placement("sbx-2", "node-a"));
  struct Case {
    const char* forget;
    const char* node_of_1;
    const char* node_of_2;
  };
  const Case cases[] = {
      {"sbx-1", "", "node-a"},
      {"sbx-1", "", "node-a"},  // Again: nothing to remove, OK.
      {"sbx-unknown", "", "node-a"},
      {"sbx-2", "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.forget);
    Status s = Owners().ForgetSandbox(c.forget);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(NodeOf("sbx-1", "acme"), c.node_of_1);
    EXPECT_EQ(NodeOf("sbx-2", "acme"), c.node_of_2);
  }
}

TEST_P(SandboxOwnersContractTest, InvalidPlacementsAreRefusedAndNotStored) {
  const std::string too_long(kMaxPlacementFieldBytes + 1, 'x');
  struct Case {
    const char* name;
    SandboxPlacement placement;
  };
  const Case cases[] = {
      {"empty id", Placement("", "node-a")},
      {"empty node", Placement("sbx-1", "")},
      {"empty tenant", Placement("sbx-1", "node-a", "")},
      {"long id", Placement(too_long, "node-a")},
      {"long node", Placement("sbx-1", too_long)},
      {"long tenant", Placement("sbx-1", "node-a", too_long)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = Owners().PlaceSandbox(c.placement);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
    EXPECT_EQ(s.reason(), kReasonInvalidPlacement);
  }
  EXPECT_EQ(NodeOf("sbx-1", "acme"), "");
  MustPlace(Placement(std::string(kMaxPlacementFieldBytes, 's'), "node-a"));  // Longest fits.
  EXPECT_EQ(NodeOf(std::string(kMaxPlacementFieldBytes, 's'), "acme"), "node-a");
}

TEST_P(SandboxOwnersContractTest, TwoStoresOnOneDatabaseSeeEachOthersPlacements) {
  if (!CanReopen()) GTEST_SKIP() << GetParam().name << " cannot reopen";
  auto other = OpenAgain();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  MustPlace(Placement("sbx-a", "node-a"));
  MustPlace(Placement("sbx-b", "node-b"), other->get());
  for (JobStore* store : {store_.get(), other->get()}) {
    EXPECT_EQ(NodeOf("sbx-a", "acme", store), "node-a");
    EXPECT_EQ(NodeOf("sbx-b", "acme", store), "node-b");
  }
  ASSERT_TRUE(Owners(other->get()).ForgetSandbox("sbx-a").ok());
  EXPECT_EQ(NodeOf("sbx-a", "acme"), "");
  other->reset();
}

}  // namespace
}  // namespace coderunner::store
