#include "coderunner/isolation/safe_tree.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "unit/isolation/disk_files.h"

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

class SafeTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-safetree-XXXXXX";
    base_ = mkdtemp(tmpl);
    root_ = base_ + "/root";
    outside_ = base_ + "/outside";
    fs::create_directories(root_);
    fs::create_directories(outside_);
    Write(outside_ + "/secret", "host secret");
  }
  void TearDown() override { fs::remove_all(base_); }

  static void Write(const std::string& path, const std::string& content) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << content;
  }

  std::set<std::string> Files(const TreeListing& l) {
    std::set<std::string> out;
    for (const auto& f : l.files) out.insert(f.path);
    return out;
  }
  std::set<std::string> Problems(const TreeListing& l) {
    std::set<std::string> out;
    for (const auto& p : l.problems) out.insert(p.path + ":" + p.reason);
    return out;
  }

  std::string base_, root_, outside_;
};

TEST_F(SafeTreeTest, ListsRegularFilesAndReportsEverythingElse) {
  Write(root_ + "/a.txt", "aaa");
  Write(root_ + "/dir/b.txt", "bb");
  fs::create_symlink(outside_ + "/secret", root_ + "/link");
  fs::create_directory_symlink(outside_, root_ + "/dirlink");
  ASSERT_EQ(mkfifo((root_ + "/fifo").c_str(), 0644), 0);
  Write(root_ + "/one", "1");
  ASSERT_EQ(link((root_ + "/one").c_str(), (root_ + "/two").c_str()), 0);
  Write(root_ + std::string("/bad\nname"), "x");
  auto l = ListTree(root_, {});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(Files(*l), (std::set<std::string>{"a.txt", "dir/b.txt"}));
  EXPECT_EQ(l->total_bytes, 5);
  EXPECT_EQ(Problems(*l),
            (std::set<std::string>{"link:symlink", "dirlink:symlink", "fifo:special_file",
                                   "one:hardlink", "two:hardlink", "bad\\x0aname:bad_name"}));
  // Listing without remove_problems changes nothing.
  EXPECT_TRUE(fs::is_symlink(root_ + "/link"));
  EXPECT_TRUE(fs::exists(root_ + "/one"));
}

TEST_F(SafeTreeTest, RemovingProblemsNeverTouchesWhatTheyPointAt) {
  fs::create_symlink(outside_ + "/secret", root_ + "/link");
  fs::create_directory_symlink(outside_, root_ + "/dirlink");
  Write(root_ + "/one", "1");
  ASSERT_EQ(link((root_ + "/one").c_str(), (root_ + "/two").c_str()), 0);
  TreeWalkOptions o;
  o.remove_problems = true;
  auto l = ListTree(root_, o);
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(fs::is_empty(root_));
  EXPECT_TRUE(fs::exists(outside_ + "/secret"));
  std::ifstream in(outside_ + "/secret");
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(content, "host secret");
}

TEST_F(SafeTreeTest, DepthAndEntryBoundsAreHonoured) {
  std::string deep = root_;
  for (int i = 0; i < 5; ++i) deep += "/d";
  Write(deep + "/f", "x");
  for (int i = 0; i < 10; ++i) Write(root_ + "/many" + std::to_string(i), "");
  TreeWalkOptions shallow;
  shallow.max_depth = 3;
  auto l = ListTree(root_, shallow);
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(Problems(*l).count("d/d/d/d:too_deep")) << l->problems.size();
  TreeWalkOptions few;
  few.max_entries = 4;
  auto t = ListTree(root_, few);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->truncated);
  EXPECT_LE(t->entries, 5);
}

TEST_F(SafeTreeTest, OpenTreeFileRefusesAnythingButAPlainFile) {
  Write(root_ + "/dir/ok.txt", "ok");
  fs::create_symlink(outside_ + "/secret", root_ + "/link");
  fs::create_directory_symlink(outside_, root_ + "/dirlink");
  ASSERT_EQ(mkfifo((root_ + "/fifo").c_str(), 0644), 0);
  Write(root_ + "/one", "1");
  ASSERT_EQ(link((root_ + "/one").c_str(), (root_ + "/two").c_str()), 0);
  struct Case {
    const char* path;
    const char* reason;  // "" = opens.
  };
  for (const Case& c :
       {Case{"dir/ok.txt", ""}, Case{"link", "file_not_found"},
        Case{"dirlink/secret", "file_not_found"}, Case{"fifo", "file_not_found"},
        Case{"one", "file_not_found"}, Case{"dir", "file_not_found"},
        Case{"missing", "file_not_found"}, Case{"../outside/secret", "invalid_path"},
        Case{"/etc/passwd", "invalid_path"}, Case{"", "invalid_path"}}) {
    SCOPED_TRACE(c.path);
    auto fd = OpenTreeFile(root_, c.path);
    if (std::string(c.reason).empty()) {
      ASSERT_TRUE(fd.ok()) << fd.status().ToString();
      auto content = ReadAllFd(fd->get(), 100);
      ASSERT_TRUE(content.ok());
      EXPECT_EQ(*content, "ok");
    } else {
      EXPECT_EQ(fd.status().reason(), c.reason);
    }
  }
}

TEST_F(SafeTreeTest, RemoveTreeEntryRemovesTheLinkNotTheTarget) {
  fs::create_directory_symlink(outside_, root_ + "/dirlink");
  Write(root_ + "/sub/x", "x");
  EXPECT_TRUE(RemoveTreeEntry(root_, "dirlink").ok());
  EXPECT_TRUE(RemoveTreeEntry(root_, "sub").ok());
  EXPECT_TRUE(RemoveTreeEntry(root_, "never-there").ok());
  EXPECT_TRUE(fs::is_empty(root_));
  EXPECT_TRUE(fs::exists(outside_ + "/secret"));
}

TEST_F(SafeTreeTest, ReadAllFdStopsAtItsBound) {
  Write(root_ + "/big", std::string(1000, 'x'));
  auto fd = OpenTreeFile(root_, "big");
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(ReadAllFd(fd->get(), 999).status().reason(), "file_too_large");
}

TEST_F(SafeTreeTest, DiskChargeIsTheLargerOfSizeInBlocksAndAllocationForFiles) {
  struct Case {
    const char* what;
    int64_t size, allocated;
    bool regular;
    int64_t block, charge;
  };
  const Case cases[] = {
      {"fallocate -n: size 0", 0, 3LL << 30, true, 4096, 3LL << 30},
      {"sparse, truncate -s", 3LL << 30, 4096, true, 4096, 3LL << 30},
      {"one byte, one block", 1, 4096, true, 4096, 4096},
      {"one byte as gVisor shows it (ceil(size/512))", 1, 512, true, 4096, 4096},
      {"one byte inline in the inode", 1, 0, true, 4096, 4096},
      {"a block exactly", 4096, 4096, true, 4096, 4096},
      {"empty", 0, 0, true, 4096, 0},
      {"block size unknown", 1, 512, true, 0, 512},
      {"a directory: its blocks", 4096, 4096, false, 4096, 4096},
      {"a fast symlink: nothing", 60, 0, false, 4096, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(DiskCharge(c.size, c.allocated, c.regular, c.block), c.charge);
  }
}

TEST_F(SafeTreeTest, ListingReportsWhatTheDiskHolds) {
  testing::MakeFile(root_ + "/prealloc", 0, 1 << 20);  // Size 0, 1 MiB on disk.
  testing::MakeFile(root_ + "/sparse", 1 << 20, 0);    // 1 MiB by size, nothing on disk.
  Write(root_ + "/d/one", "1");
  auto allocated = [&](const std::string& rel) {
    return testing::AllocatedBytes(root_ + "/" + rel);
  };
  auto l = ListTree(root_, {});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  struct statvfs vfs;
  ASSERT_EQ(statvfs(root_.c_str(), &vfs), 0);
  EXPECT_EQ(l->block_bytes, static_cast<int64_t>(vfs.f_frsize));
  if (l->block_bytes != 4096) GTEST_SKIP() << "the figures below assume 4 KiB blocks";
  ASSERT_EQ(Files(*l), (std::set<std::string>{"d/one", "prealloc", "sparse"}));
  int64_t used = 0;
  for (const auto& f : l->files) {
    EXPECT_EQ(f.allocated_bytes, allocated(f.path)) << f.path;
    used += std::max((f.size + 4095) / 4096 * 4096, f.allocated_bytes);
  }
  EXPECT_EQ(l->files[1].path, "prealloc");
  EXPECT_EQ(l->files[1].size, 0);
  EXPECT_GE(l->files[1].allocated_bytes, 1 << 20);
  EXPECT_EQ(l->files[2].allocated_bytes, 0);
  EXPECT_EQ(l->directories, std::vector<std::string>{"d"});
  EXPECT_EQ(l->directory_bytes, allocated("d"));
  EXPECT_EQ(l->used_bytes, used + allocated("d"));
  EXPECT_EQ(l->total_bytes, (1 << 20) + 1);
}

TEST_F(SafeTreeTest, MissingRootIsNotFound) {
  EXPECT_EQ(ListTree(base_ + "/nope", {}).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace coderunner::isolation
