// What an install leaves becomes a layer on the host's disk: root's, with
// no setuid bit, no link and nothing but directories and regular files;
// named by a key no job knows.
#include "packages/layer_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace coderunner::packages {
namespace {

namespace fs = std::filesystem;

class LayerStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to own layers";
    char tmpl[] = "/tmp/coderunner-layers-XXXXXX";
    dir_ = mkdtemp(tmpl);
    ASSERT_EQ(chmod(dir_.c_str(), 0711), 0);  // Installs' uids pass through it.
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string dir_;
};

const std::vector<LockedPackage> kLock = {{"crtiny", "1.0", std::string(64, 'a'), "", ""}};

mode_t ModeOf(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

TEST_F(LayerStoreTest, ItsDirectoriesLetAJobEnterButNotList) {
  auto store = LayerStore::Open(dir_ + "/packages");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(ModeOf(dir_ + "/packages/layers") & 07777, 0711u);
  EXPECT_EQ(ModeOf(dir_ + "/packages/staging") & 07777, 0711u);
  EXPECT_EQ(ModeOf(dir_ + "/packages/layer.key") & 07777, 0600u);
  EXPECT_EQ(fs::file_size(dir_ + "/packages/layer.key"), 32u);
}

TEST_F(LayerStoreTest, ADirectoryAboveThatOthersCannotSearchIsRefusedAtOnce) {
  ASSERT_EQ(chmod(dir_.c_str(), 0700), 0);  // mkdtemp's own mode.
  auto store = LayerStore::Open(dir_ + "/packages");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().reason(), "packages_dir_unusable");
  EXPECT_NE(store.status().message().find(dir_ + " does not let other users search it"),
            std::string::npos)
      << store.status().message();
}

TEST_F(LayerStoreTest, NamesAreKeyedAndKeptAcrossRestarts) {
  auto a = LayerStore::Open(dir_ + "/a");
  auto b = LayerStore::Open(dir_ + "/b");
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string name = a->NameOf("python", kLock);
  EXPECT_EQ(name.size(), 64u);
  EXPECT_NE(name, b->NameOf("python", kLock));  // Another key: another name.
  EXPECT_NE(name, a->NameOf("npm", kLock));
  auto again = LayerStore::Open(dir_ + "/a");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->NameOf("python", kLock), name);
}

TEST_F(LayerStoreTest, ACommittedLayerHoldsOnlyRootsDirectoriesAndPlainFiles) {
  auto store = LayerStore::Open(dir_ + "/packages");
  ASSERT_TRUE(store.ok());
  auto staging = store->NewStaging(65534);
  ASSERT_TRUE(staging.ok());
  const std::string tree = *staging + "/python";
  fs::create_directories(tree + "/pkg/private");
  std::ofstream(tree + "/pkg/__init__.py") << "x = 1\n";
  std::ofstream(tree + "/pkg/tool") << "#!/bin/sh\n";
  ASSERT_EQ(chmod((tree + "/pkg/tool").c_str(), 04777), 0);
  ASSERT_EQ(chmod((tree + "/pkg/private").c_str(), 0700), 0);
  ASSERT_EQ(chown((tree + "/pkg/__init__.py").c_str(), 65534, 65534), 0);
  fs::create_symlink("/etc/shadow", tree + "/pkg/shadow");
  ASSERT_EQ(mkfifo((tree + "/pkg/fifo").c_str(), 0666), 0);
  const std::string name = store->NameOf("python", kLock);
  ASSERT_TRUE(store->Commit(tree, name, "python").ok());
  const std::string layer = dir_ + "/packages/layers/" + name + "/python/pkg";
  EXPECT_EQ(ModeOf(layer + "/__init__.py") & 07777, 0644u);
  EXPECT_EQ(ModeOf(layer + "/tool") & 07777, 0755u);  // No setuid, no write.
  EXPECT_EQ(ModeOf(layer + "/private") & 07777, 0755u);
  EXPECT_FALSE(fs::exists(fs::symlink_status(layer + "/shadow")));
  EXPECT_FALSE(fs::exists(fs::symlink_status(layer + "/fifo")));
  struct stat st;
  ASSERT_EQ(lstat((layer + "/__init__.py").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_TRUE(store->Exists(name));
  // A second install of the same set keeps the first layer.
  auto second = store->NewStaging(65534);
  ASSERT_TRUE(second.ok());
  fs::create_directories(*second + "/python/other");
  ASSERT_TRUE(store->Commit(*second + "/python", name, "python").ok());
  EXPECT_TRUE(fs::exists(layer + "/__init__.py"));
  EXPECT_FALSE(fs::exists(dir_ + "/packages/layers/" + name + "/python/other"));
}

}  // namespace
}  // namespace coderunner::packages
