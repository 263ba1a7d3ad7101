// The NodeRegistry contract (node_registry.h) over every job store that
// implements it: upsert, order, remove, validation, and two stores on one
// database seeing each other's nodes. Runs over every ContractBackends()
// backend.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "coderunner/store/node_registry.h"
#include "job_store_contract.h"

namespace coderunner::store {
namespace {

class NodeRegistryContractTest : public JobStoreContractFixture {
 protected:
  // The NodeRegistry of `store` (default store_); both job stores keep one.
  NodeRegistry& Nodes(JobStore* store = nullptr) {
    NodeRegistry* nodes = Parts(store).nodes;
    EXPECT_NE(nodes, nullptr) << GetParam().name << " keeps no NodeRegistry";
    return *nodes;
  }
  void MustHeartbeat(const NodeInfo& node, int64_t now_ms, JobStore* store = nullptr) {
    Status s = Nodes(store).Heartbeat(node, now_ms);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  std::vector<NodeInfo> MustList(JobStore* store = nullptr) {
    auto nodes = Nodes(store).List();
    EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
    return nodes.ok() ? *nodes : std::vector<NodeInfo>{};
  }
  std::vector<std::string> ListIds(JobStore* store = nullptr) {
    std::vector<std::string> ids;
    for (const NodeInfo& n : MustList(store)) ids.push_back(n.id);
    return ids;
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, NodeRegistryContractTest,
                         ::testing::ValuesIn(ContractBackends()), BackendName);

using Ids = std::vector<std::string>;

NodeInfo MakeNode(const std::string& id, int running = 0) {
  NodeInfo node;
  node.id = id;
  node.advertised_url = "http://" + id + ":8080";
  node.engine = "podman";
  node.runtime = "runc";
  node.capacity = 4;
  node.running = running;
  node.version = "1.2.3";
  node.started_at_ms = 1000;
  node.last_heartbeat_ms = 42;  // Ignored: the heartbeat's now_ms is stored.
  return node;
}

TEST_P(NodeRegistryContractTest, EmptyAtFirst) { EXPECT_TRUE(MustList().empty()); }

TEST_P(NodeRegistryContractTest, HeartbeatInsertsThenReplacesTheRow) {
  MustHeartbeat(MakeNode("node-a", 1), 5000);
  std::vector<NodeInfo> first = MustList();
  ASSERT_EQ(first.size(), 1u);
  const NodeInfo& n = first[0];
  EXPECT_EQ(n.id, "node-a");
  EXPECT_EQ(n.advertised_url, "http://node-a:8080");
  EXPECT_EQ(n.engine, "podman");
  EXPECT_EQ(n.runtime, "runc");
  EXPECT_EQ(n.capacity, 4);
  EXPECT_EQ(n.running, 1);
  EXPECT_EQ(n.version, "1.2.3");
  EXPECT_EQ(n.started_at_ms, 1000);
  EXPECT_EQ(n.last_heartbeat_ms, 5000);

  NodeInfo changed = MakeNode("node-a", 3);
  changed.advertised_url = "https://a.example:443";
  changed.engine = "docker";
  changed.started_at_ms = 4000;  // It restarted.
  MustHeartbeat(changed, 10000);
  std::vector<NodeInfo> second = MustList();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].advertised_url, "https://a.example:443");
  EXPECT_EQ(second[0].engine, "docker");
  EXPECT_EQ(second[0].running, 3);
  EXPECT_EQ(second[0].started_at_ms, 4000);
  EXPECT_EQ(second[0].last_heartbeat_ms, 10000);
}

TEST_P(NodeRegistryContractTest, ListIsOrderedById) {
  for (const char* id : {"node-c", "Node-Z", "node-a", "node-b10", "node-b2"}) {
    MustHeartbeat(MakeNode(id), 100);
  }
  // Byte order: upper case first, "b10" before "b2".
  EXPECT_EQ(ListIds(), (Ids{"Node-Z", "node-a", "node-b10", "node-b2", "node-c"}));
}

TEST_P(NodeRegistryContractTest, RemoveDropsOnlyThatNodeAndUnknownIsOk) {
  for (const char* id : {"node-a", "node-b", "node-c"}) MustHeartbeat(MakeNode(id), 100);
  struct Case {
    const char* remove;
    Ids want;
  };
  const Case cases[] = {
      {"node-b", {"node-a", "node-c"}},
      // Again: nothing to remove, OK.
      {"node-b", {"node-a", "node-c"}},
      {"no-such-node", {"node-a", "node-c"}},
      {"node-a", {"node-c"}},
      {"node-c", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.remove);
    Status s = Nodes().Remove(c.remove);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(ListIds(), c.want);
  }
}

TEST_P(NodeRegistryContractTest, InvalidNodesAreRefusedAndNotStored) {
  struct Case {
    const char* name;
    NodeInfo node;
  };
  NodeInfo empty_id = MakeNode("");
  NodeInfo long_id = MakeNode(std::string(kMaxNodeIdBytes + 1, 'n'));
  NodeInfo long_url = MakeNode("node-a");
  long_url.advertised_url = "http://" + std::string(kMaxNodeTextBytes, 'h');
  NodeInfo negative_capacity = MakeNode("node-a");
  negative_capacity.capacity = -1;
  NodeInfo negative_running = MakeNode("node-a", -2);
  const Case cases[] = {{"empty id", empty_id},
                        {"long id", long_id},
                        {"long url", long_url},
                        {"negative capacity", negative_capacity},
                        {"negative running", negative_running}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = Nodes().Heartbeat(c.node, 100);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
    EXPECT_EQ(s.reason(), kReasonInvalidNode);
  }
  EXPECT_TRUE(MustList().empty());
  MustHeartbeat(MakeNode(std::string(kMaxNodeIdBytes, 'n')), 100);  // The longest id fits.
  EXPECT_EQ(MustList().size(), 1u);
}

TEST_P(NodeRegistryContractTest, TwoStoresOnOneDatabaseSeeEachOthersNodes) {
  if (!CanReopen()) GTEST_SKIP() << GetParam().name << " cannot reopen";
  auto other = OpenAgain();
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  MustHeartbeat(MakeNode("node-a", 1), 100);
  MustHeartbeat(MakeNode("node-b", 2), 200, other->get());
  for (JobStore* store : {store_.get(), other->get()}) {
    std::vector<NodeInfo> nodes = MustList(store);
    ASSERT_EQ(nodes.size(), 2u);
    EXPECT_EQ(nodes[0].id, "node-a");
    EXPECT_EQ(nodes[0].running, 1);
    EXPECT_EQ(nodes[0].last_heartbeat_ms, 100);
    EXPECT_EQ(nodes[1].id, "node-b");
    EXPECT_EQ(nodes[1].running, 2);
    EXPECT_EQ(nodes[1].last_heartbeat_ms, 200);
  }
  // node-b leaves cleanly; node-a sees it gone.
  ASSERT_TRUE(Nodes(other->get()).Remove("node-b").ok());
  EXPECT_EQ(ListIds(), (Ids{"node-a"}));
  other->reset();
}

}  // namespace
}  // namespace coderunner::store
