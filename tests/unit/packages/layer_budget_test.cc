// The layers on disk stay within packages.max_layers_bytes: what no job or
// sandbox holds goes, least recently used first; what is held stays, bytes
// and all, and an install is refused while held layers fill the store.
#include "packages/layer_budget.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "packages/install_process.h"

namespace coderunner::packages {
namespace {

namespace fs = std::filesystem;

class LayerBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-layer-budget-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A layer of one file of `kib` KiB; its bytes on disk.
  int64_t MakeLayer(const std::string& name, int kib) {
    fs::create_directories(dir_ + "/" + name + "/python");
    std::ofstream(dir_ + "/" + name + "/python/blob") << std::string(kib << 10, 'x');
    return TreeBytes(dir_ + "/" + name);
  }
  bool OnDisk(const std::string& name) const { return fs::exists(dir_ + "/" + name); }
  std::string dir_;
};

TEST_F(LayerBudgetTest, UnheldLayersGoLeastRecentlyUsedFirstAndHeldOnesStay) {
  const int64_t one = MakeLayer("a", 64);
  LayerBudget budget(dir_, 3 * one);
  EXPECT_EQ(budget.used_bytes(), one);  // Taken stock of at the start.
  auto hold_b = (MakeLayer("b", 64), budget.Add("b"));
  auto hold_c = (MakeLayer("c", 64), budget.Add("c"));
  ASSERT_NE(hold_b, nullptr);
  hold_c.reset();
  // Used since: a is now more recent than c.
  EXPECT_NE(budget.Hold("a"), nullptr);
  // d passes the bound: the least recently used unheld layer, c, goes; b is
  // held and older, and stays.
  auto hold_d = (MakeLayer("d", 64), budget.Add("d"));
  EXPECT_FALSE(OnDisk("c"));
  EXPECT_TRUE(OnDisk("b"));
  EXPECT_TRUE(OnDisk("a"));
  EXPECT_TRUE(OnDisk("d"));
  EXPECT_EQ(budget.used_bytes(), 3 * one);
  EXPECT_EQ(budget.Hold("c"), nullptr);  // Gone: installed again when asked.
  // At its bound with every layer held: the next install is refused...
  auto hold_a = budget.Hold("a");
  EXPECT_EQ(budget.MakeRoom().reason(), kReasonPackageStoreFull);
  EXPECT_EQ(budget.layers(), 3);
  // ...until one is let go: then it makes room.
  hold_a.reset();
  EXPECT_TRUE(budget.MakeRoom().ok());
  EXPECT_FALSE(OnDisk("a"));
  EXPECT_LT(budget.used_bytes(), 3 * one);
}

}  // namespace
}  // namespace coderunner::packages
