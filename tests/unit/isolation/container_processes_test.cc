// A container's processes as the /output guard finds them (container_
// processes.h): by their cgroup, in a PID namespace of their own (runc) or
// in the service's (gVisor's sandbox), never another process; the files
// they hold open after removing every name count; they are killed without
// the engine. Runs as root, as the service does: a holder process is put
// into a test cgroup named like a container.
#include "coderunner/isolation/container_processes.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "unit/isolation/container_fixtures.h"

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

class ContainerProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "the service looks at other processes as root";
    char tmpl[] = "/tmp/coderunner-procs-XXXXXX";
    dir_ = mkdtemp(tmpl);
    // A holder's parent exits at once: adopt it here, to reap it.
    ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  }
  void TearDown() override {
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string dir_;
};

// A process of a container opens a file below the directory, writes it,
// removes its name and keeps it open: no walk sees it, OpenOrphans does
// once its container's processes are found, whichever way the runtime lays
// them out, and they die without the engine.
TEST_F(ContainerProcessesTest, FoundByTheirCgroupHeldFilesCountAndTheyDie) {
  for (bool own_namespace : {true, false}) {
    SCOPED_TRACE(own_namespace ? "runc: a PID namespace of its own" : "gVisor: the host's");
    TestCgroup cgroup;
    if (!cgroup.ok()) GTEST_SKIP() << "no cgroup to put the holder in";
    const pid_t holder = StartHolder(dir_ + "/held", 3, own_namespace);
    ASSERT_GT(holder, 0);
    Reaper reaper{holder};
    // Not the container's while its cgroup does not say so, and no id too
    // short to be one matches anything.
    EXPECT_FALSE(FindContainerProcesses(cgroup.id()).has_value());
    EXPECT_FALSE(FindContainerProcesses("").has_value());
    ASSERT_EQ(cgroup.Add(holder), "");
    const std::optional<ContainerProcesses> p = FindContainerProcesses(cgroup.id());
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->pid_namespace != 0, own_namespace);
    EXPECT_EQ(p->in_host_namespace.size(), own_namespace ? 0u : 1u);
    struct stat dir;
    ASSERT_EQ(stat(dir_.c_str(), &dir), 0);
    std::vector<OrphanUsage> found = OpenOrphans({{*p, dir.st_dev, 4096}});
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].files, 1);
    EXPECT_GE(found[0].used_bytes, 3 << 20);
    EXPECT_GE(found[0].largest, 3 << 20);
    // On another file system, none of it counts.
    EXPECT_EQ(OpenOrphans({{*p, dir.st_dev + 1, 4096}})[0].files, 0);
    // A process named by a pid used again (another start) is not looked at.
    if (!own_namespace) {
      ContainerProcesses stale = *p;
      stale.in_host_namespace[0].start_ticks += 1;
      EXPECT_EQ(OpenOrphans({{stale, dir.st_dev, 4096}})[0].files, 0);
    }
    // Killed as found (namespace or pid and start, then cgroup), or by a
    // pass over every process's cgroup.
    EXPECT_EQ(own_namespace ? KillProcesses(*p) : KillContainerProcesses(cgroup.id()), 1);
    int status = 0;
    EXPECT_EQ(waitpid(holder, &status, 0), holder);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    reaper.pid = -1;
    EXPECT_EQ(KillContainerProcesses(cgroup.id()), 0);
  }
}

// The kernel gives a PID namespace's inode number to the next one made as
// soon as the first ends: a container's recorded namespace can become
// another container's while the guard still looks at it. What processes
// outside the container's cgroup hold is never counted for it.
TEST_F(ContainerProcessesTest, AnotherContainersProcessesNeverCount) {
  TestCgroup mine;
  if (!mine.ok()) GTEST_SKIP() << "no cgroup to put the holder in";
  for (bool own_namespace : {true, false}) {
    SCOPED_TRACE(own_namespace ? "in the namespace recorded for it"
                               : "under a pid recorded for it");
    TestCgroup theirs;
    const pid_t holder = StartHolder(dir_ + "/theirs", 3, own_namespace);
    ASSERT_GT(holder, 0);
    Reaper reaper{holder};
    ASSERT_EQ(theirs.Add(holder), "");
    std::optional<ContainerProcesses> found = FindContainerProcesses(theirs.id());
    ASSERT_TRUE(found.has_value());
    ContainerProcesses recorded = *found;
    recorded.container_id = mine.id();  // What was recorded for my container.
    struct stat dir;
    ASSERT_EQ(stat(dir_.c_str(), &dir), 0);
    EXPECT_EQ(OpenOrphans({{*found, dir.st_dev, 4096}})[0].files, 1);
    EXPECT_EQ(OpenOrphans({{recorded, dir.st_dev, 4096}})[0].files, 0);
    EXPECT_EQ(KillProcesses(recorded), 0) << "killed another container's process";
  }
}

// A process can size a file, map it shared, close it and remove its name,
// then allocate its blocks by writing through the mapping alone: no
// descriptor holds it, and it counts all the same (charged what the
// mapping reaches).
TEST_F(ContainerProcessesTest, FilesMappedAfterTheirNameIsGoneCount) {
  TestCgroup cgroup;
  if (!cgroup.ok()) GTEST_SKIP() << "no cgroup to put the holder in";
  const pid_t holder = StartHolder(dir_ + "/mapped", 3, true, Holding::kMapped);
  ASSERT_GT(holder, 0);
  Reaper reaper{holder};
  ASSERT_EQ(cgroup.Add(holder), "");
  std::optional<ContainerProcesses> p = FindContainerProcesses(cgroup.id());
  ASSERT_TRUE(p.has_value());
  struct stat dir;
  ASSERT_EQ(stat(dir_.c_str(), &dir), 0);
  std::vector<OrphanUsage> found = OpenOrphans({{*p, dir.st_dev, 4096}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].files, 1);
  EXPECT_EQ(found[0].used_bytes, 3 << 20);
  EXPECT_EQ(found[0].largest, 3 << 20);
}

}  // namespace
}  // namespace coderunner::isolation
