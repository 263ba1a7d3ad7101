#include "coderunner/isolation/workspace.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "unit/temp_dir.h"

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

mode_t Mode(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

bool IsEmptyDir(const std::string& path) { return fs::is_empty(path); }

// The job's group (its container's own uid): the workspace is root's, and
// readable through this group only.
constexpr int64_t kGid = 2100000042;

gid_t Group(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? st.st_gid : 0;
}

class WorkspaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = testutil::MakeTempDir("ws");
    outside_ = testutil::MakeTempDir("ws");
    old_umask_ = umask(077);  // The workspace must not depend on the umask.
    auto ws = Workspace::Create(root_ + "/workspaces", "job-1", kGid);
    ASSERT_TRUE(ws.ok()) << ws.status().ToString();
    ws_ = std::move(*ws);
  }
  void TearDown() override {
    umask(old_umask_);
    ws_.reset();
    fs::remove_all(root_);
    fs::remove_all(outside_);
  }

  std::string root_;
  std::string outside_;
  mode_t old_umask_ = 0;
  std::unique_ptr<Workspace> ws_;
};

TEST_F(WorkspaceTest, CreatesDirectoryReadableByTheJobsGroupOnly) {
  EXPECT_EQ(ws_->path(), root_ + "/workspaces/job-1");
  EXPECT_TRUE(fs::is_directory(ws_->path()));
  EXPECT_EQ(Mode(ws_->path()), 0750u);
  EXPECT_EQ(Group(ws_->path()), static_cast<gid_t>(kGid));
  // Other host users cannot even look into the root of all workspaces.
  EXPECT_EQ(Mode(root_ + "/workspaces"), 0700u);
}

TEST_F(WorkspaceTest, WritesFilesWith0640AndDirectoriesWith0750ForTheJobsGroup) {
  struct Case {
    std::string path;
    std::string content;
  };
  const std::vector<Case> cases = {
      {"main.py", "print('hi')\n"},
      {"data/in.txt", "input"},
      {"data/deeper/more/x.bin", std::string("\0\1\2\xff", 4)},
      {"data/second.txt", ""},
      {"big.bin", std::string(3 << 20, 'b')},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    ASSERT_TRUE(ws_->WriteFile(c.path, c.content).ok());
    std::string full = ws_->path() + "/" + c.path;
    EXPECT_EQ(ReadFile(full), c.content);
    EXPECT_EQ(Mode(full), 0640u);
    EXPECT_EQ(Group(full), static_cast<gid_t>(kGid));
  }
  for (const std::string dir : {"data", "data/deeper", "data/deeper/more"}) {
    SCOPED_TRACE(dir);
    EXPECT_EQ(Mode(ws_->path() + "/" + dir), 0750u);
    EXPECT_EQ(Group(ws_->path() + "/" + dir), static_cast<gid_t>(kGid));
  }
}

TEST_F(WorkspaceTest, DuplicateFileIsAlreadyExistsAndKeepsTheFirstContent) {
  ASSERT_TRUE(ws_->WriteFile("a.txt", "first").ok());
  Status s = ws_->WriteFile("a.txt", "second");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(ReadFile(ws_->path() + "/a.txt"), "first");
}

TEST_F(WorkspaceTest, FileWhereADirectoryIsNeededFails) {
  ASSERT_TRUE(ws_->WriteFile("a", "file").ok());
  EXPECT_FALSE(ws_->WriteFile("a/b", "x").ok());
  ASSERT_TRUE(ws_->WriteFile("d/f", "x").ok());
  EXPECT_FALSE(ws_->WriteFile("d", "x").ok());
}

TEST_F(WorkspaceTest, RejectsUnsafePathsAndDepth) {
  for (const std::string path : {"../escape", "/abs", "a/../b", "", "a//b", "a\\b"}) {
    SCOPED_TRACE(path);
    Status s = ws_->WriteFile(path, "x");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(ws_->WriteFile("a/b/c", "x", 3).ok());
  EXPECT_EQ(ws_->WriteFile("a/b/c/d", "x", 3).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(root_ + "/workspaces/escape"));
}

TEST_F(WorkspaceTest, WritesTheServicesOwnReservedStdinFile) {
  ASSERT_TRUE(ws_->WriteFile(".coderunner-stdin", "input").ok());
  EXPECT_EQ(ReadFile(ws_->path() + "/.coderunner-stdin"), "input");
  EXPECT_EQ(Mode(ws_->path() + "/.coderunner-stdin"), 0640u);
}

TEST_F(WorkspaceTest, RefusesToWriteThroughSymlinkedDirectoryComponent) {
  fs::create_symlink(outside_, ws_->path() + "/dir");
  Status s = ws_->WriteFile("dir/pwned.txt", "x");
  EXPECT_FALSE(s.ok());
  s = ws_->WriteFile("dir/sub/pwned.txt", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(IsEmptyDir(outside_));
}

TEST_F(WorkspaceTest, RefusesToWriteThroughSymlinkedNestedDirectoryComponent) {
  ASSERT_TRUE(ws_->WriteFile("a/keep.txt", "x").ok());
  fs::create_symlink(outside_, ws_->path() + "/a/b");
  EXPECT_FALSE(ws_->WriteFile("a/b/pwned.txt", "x").ok());
  EXPECT_TRUE(IsEmptyDir(outside_));
}

TEST_F(WorkspaceTest, RefusesToWriteThroughSymlinkAtTheFileName) {
  // Dangling: O_CREAT would create the target if the link were followed.
  fs::create_symlink(outside_ + "/created.txt", ws_->path() + "/dangling.txt");
  Status s = ws_->WriteFile("dangling.txt", "x");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(IsEmptyDir(outside_));

  // Pointing at an existing file: it must not be truncated or overwritten.
  { std::ofstream(outside_ + "/victim.txt") << "original"; }
  fs::create_symlink(outside_ + "/victim.txt", ws_->path() + "/victim.txt");
  s = ws_->WriteFile("victim.txt", "overwritten");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(ReadFile(outside_ + "/victim.txt"), "original");
}

TEST_F(WorkspaceTest, RemoveDeletesTheTreeButNeverFollowsASymlinkOut) {
  { std::ofstream(outside_ + "/precious.txt") << "keep me"; }
  ASSERT_TRUE(ws_->WriteFile("a/b/c.txt", "x").ok());
  fs::create_symlink(outside_, ws_->path() + "/a/escape");
  fs::create_symlink(outside_ + "/precious.txt", ws_->path() + "/file-link");
  std::string path = ws_->path();
  ASSERT_TRUE(ws_->Remove().ok());
  EXPECT_FALSE(fs::exists(fs::symlink_status(path)));
  EXPECT_EQ(ReadFile(outside_ + "/precious.txt"), "keep me");
  EXPECT_TRUE(fs::is_directory(outside_));
  // Idempotent, and no more writes afterwards.
  EXPECT_TRUE(ws_->Remove().ok());
  EXPECT_EQ(ws_->WriteFile("late.txt", "x").code(), StatusCode::kFailedPrecondition);
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(WorkspaceTest, DestructorRemovesTheTree) {
  ASSERT_TRUE(ws_->WriteFile("x/y", "z").ok());
  std::string path = ws_->path();
  ws_.reset();
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(WorkspaceTest, CreateRejectsBadNamesAndExistingWorkspace) {
  for (const std::string name : {"", "a/b", "..", ".", "../x", "/abs"}) {
    SCOPED_TRACE(name);
    auto ws = Workspace::Create(root_ + "/workspaces", name, kGid);
    ASSERT_FALSE(ws.ok());
    EXPECT_EQ(ws.status().code(), StatusCode::kInvalidArgument);
  }
  auto dup = Workspace::Create(root_ + "/workspaces", "job-1", kGid);
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  // The failed duplicate did not remove the live workspace.
  EXPECT_TRUE(fs::is_directory(ws_->path()));
}

TEST_F(WorkspaceTest, CreateRefusesASymlinkPlantedAtTheWorkspaceName) {
  fs::create_symlink(outside_, root_ + "/workspaces/job-2");
  auto ws = Workspace::Create(root_ + "/workspaces", "job-2", kGid);
  EXPECT_FALSE(ws.ok());
  EXPECT_TRUE(fs::is_directory(outside_));
  EXPECT_TRUE(IsEmptyDir(outside_));
}

TEST(RemoveTreeTest, MissingPathIsOk) {
  EXPECT_TRUE(RemoveTree(::testing::TempDir() + "/coderunner-does-not-exist-42").ok());
}

TEST(RemoveTreeTest, RemovesASymlinkItselfNotItsTarget) {
  std::string outside = testutil::MakeTempDir("ws");
  std::string base = testutil::MakeTempDir("ws");
  { std::ofstream(outside + "/f") << "x"; }
  fs::create_symlink(outside, base + "/link");
  EXPECT_TRUE(RemoveTree(base + "/link").ok());
  EXPECT_TRUE(fs::exists(outside + "/f"));
  EXPECT_TRUE(RemoveTree(base).ok());
  EXPECT_FALSE(fs::exists(base));
  fs::remove_all(outside);
}

}  // namespace
}  // namespace coderunner::isolation
