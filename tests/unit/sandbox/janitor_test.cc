#include "coderunner/sandbox/janitor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::sandbox {
namespace {

namespace fs = std::filesystem;
using testutil::FakeTransport;

// The exact path ContainerClient::List builds for managed=true + instance=blue.
const char* kListBlue =
    "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22io.coderunner.instance%3Dblue%22%2C%"
    "22io.coderunner.managed%3Dtrue%22%5D%7D";

class JanitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/coderunner-janitor-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    ASSERT_NE(mkdtemp(buf.data()), nullptr);
    root_ = buf.data();
    fs::create_directories(root_ + "/job-aaa/sub");
    { std::ofstream(root_ + "/job-aaa/sub/f") << "x"; }
    fs::create_directories(root_ + "/job-bbb");
    fs::create_directories(root_ + "/not-a-job");
    { std::ofstream(root_ + "/README") << "keep"; }
  }
  void TearDown() override { fs::remove_all(root_); }

  FakeTransport transport_;
  engine::ContainerClient client_{transport_, std::chrono::milliseconds(1000)};
  std::string root_;
};

TEST_F(JanitorTest, RemovesOwnContainersAndJobWorkspacesOnly) {
  transport_.Answer("GET", kListBlue, 200,
                    std::string(R"([{"Id":"c1","State":"exited"},{"Id":"c2","State":"running"}])"));
  transport_.Answer("DELETE", "/containers/c1?force=1&v=1", 204, std::string());
  transport_.Answer("DELETE", "/containers/c2?force=1&v=1", 404, std::string());
  auto report = SweepOrphans(client_, "blue", root_);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->containers_removed, 2);
  EXPECT_EQ(report->workspaces_removed, 2);
  EXPECT_FALSE(fs::exists(root_ + "/job-aaa"));
  EXPECT_FALSE(fs::exists(root_ + "/job-bbb"));
  EXPECT_TRUE(fs::exists(root_ + "/not-a-job"));
  EXPECT_TRUE(fs::exists(root_ + "/README"));
  // Only the listed containers were touched.
  int deletes = 0;
  for (const auto& r : transport_.requests()) deletes += r.method == "DELETE";
  EXPECT_EQ(deletes, 2);
}

TEST_F(JanitorTest, FailedRemovalIsNotCounted) {
  transport_.Answer("GET", kListBlue, 200, std::string(R"([{"Id":"c1"},{"Id":"c2"}])"));
  transport_.Answer("DELETE", "/containers/c1?force=1&v=1", 500,
                    std::string(R"({"message":"device busy"})"));
  transport_.Answer("DELETE", "/containers/c2?force=1&v=1", 204, std::string());
  auto report = SweepOrphans(client_, "blue", root_);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->containers_removed, 1);
}

TEST_F(JanitorTest, EngineDownIsUnavailableButWorkspacesAreStillSwept) {
  transport_.FailEverything(UnavailableError("connect: refused", "engine_unavailable"));
  auto report = SweepOrphans(client_, "blue", root_);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(fs::exists(root_ + "/job-aaa"));
  EXPECT_TRUE(fs::exists(root_ + "/not-a-job"));
}

TEST_F(JanitorTest, MissingWorkspaceRootIsFine) {
  transport_.Answer("GET", kListBlue, 200, std::string("[]"));
  auto report = SweepOrphans(client_, "blue", root_ + "/nope");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->workspaces_removed, 0);
  EXPECT_EQ(report->containers_removed, 0);
}

}  // namespace
}  // namespace coderunner::sandbox
