// OutputWatch (output_watch.h): the service's live guard on /output finds a
// broken bound without anything from inside the container, acts once, and
// lets its owner go only once an action in progress is over.
#include "coderunner/isolation/output_watch.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "unit/isolation/container_fixtures.h"
#include "unit/isolation/disk_files.h"

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// A bound on how long a test waits for something the watch should do
// within milliseconds; reaching it fails the test rather than hangs it.
constexpr auto kPatience = std::chrono::seconds(20);

// Walks every millisecond at most, held files looked at every `orphans`.
OutputWatchOptions Quick(milliseconds orphans) {
  OutputWatchOptions o;
  o.min_interval = milliseconds(1);
  o.max_interval = milliseconds(50);
  o.orphan_interval = orphans;
  return o;
}

class OutputWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "the watch walks /output as root";
    char tmpl[] = "/tmp/coderunner-watch-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override {
    if (dir_.empty()) return;
    testing::UnlockDirectories(dir_);
    fs::remove_all(dir_);
  }

 public:
  void Write(const std::string& path, size_t bytes) {
    fs::path p = fs::path(dir_) / path;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << std::string(bytes, 'x');
  }

  // Records the breach actions the watch takes.
  struct Breaches {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::string> bounds;
    OutputWatch::BreachAction Action() {
      return [this](std::string_view bound) {
        std::lock_guard<std::mutex> lock(mu);
        bounds.emplace_back(bound);
        cv.notify_all();
      };
    }
    bool WaitFor(size_t n) {
      std::unique_lock<std::mutex> lock(mu);
      return cv.wait_for(lock, kPatience, [&] { return bounds.size() >= n; });
    }
  };

  std::string dir_;
};

TEST_F(OutputWatchTest, ABrokenBoundIsActedOnOnceWithTheBound) {
  struct Case {
    const char* what;
    OutputLimits limits;
    std::function<void(OutputWatchTest&)> write;
    std::string want;
  };
  const Case cases[] = {
      {"total", {300000, 0, 0}, [](OutputWatchTest& t) { t.Write("a", 400000); }, kBoundTooLarge},
      {"one file",
       {0, 100000, 0},
       [](OutputWatchTest& t) { t.Write("a", 150000); },
       kBoundFileTooLarge},
      {"entries",
       {0, 0, 5},
       [](OutputWatchTest& t) {
         for (int i = 0; i < 8; ++i) t.Write("f" + std::to_string(i), 1);
       },
       kBoundTooManyFiles},
      // Written, then hidden from the job's own uid: the watch is root.
      {"below a directory locked after the writes",
       {300000, 0, 0},
       [](OutputWatchTest& t) {
         t.Write("h/a", 200000);
         t.Write("h/b", 200000);
         chmod((t.dir_ + "/h").c_str(), 0400);
       },
       kBoundTooLarge},
  };
  OutputWatch watch(Quick(milliseconds(50)));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    testing::UnlockDirectories(dir_);
    for (const auto& e : fs::directory_iterator(dir_)) fs::remove_all(e.path());
    Breaches seen;
    auto handle = watch.Watch(dir_, c.limits, "", seen.Action());
    EXPECT_EQ(handle->violation(), "");
    c.write(*this);
    ASSERT_TRUE(seen.WaitFor(1)) << "no breach found";
    EXPECT_EQ(handle->violation(), c.want);
    // Once: more walks of a tree that stays over do not act again.
    std::this_thread::sleep_for(milliseconds(100));
    std::lock_guard<std::mutex> lock(seen.mu);
    EXPECT_EQ(seen.bounds, std::vector<std::string>{c.want});
  }
  EXPECT_EQ(watch.size(), 0u);
}

TEST_F(OutputWatchTest, ATreeWithinItsBoundsIsLeftAlone) {
  OutputWatch watch(Quick(milliseconds(50)));
  Breaches seen;
  Write("a", 1000);
  auto handle = watch.Watch(dir_, {1 << 20, 1 << 20, 10}, "", seen.Action());
  // Until the usage shows a walk happened, then some more walks.
  for (int i = 0; i < 2000 && handle->usage().file_bytes != 1000; ++i) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_EQ(handle->usage().file_bytes, 1000);
  EXPECT_EQ(handle->usage().entries, 1);
  EXPECT_EQ(handle->violation(), "");
  std::lock_guard<std::mutex> lock(seen.mu);
  EXPECT_TRUE(seen.bounds.empty());
}

// A write wakes the watch (inotify) long before its period comes round:
// with a period of a minute, a breach below a directory made after the
// watch began (and locked from its writer's uid) is still acted on at once.
TEST_F(OutputWatchTest, AWriteWakesTheWatchBeforeItsPeriod) {
  OutputWatchOptions slow;
  slow.min_interval = std::chrono::seconds(60);
  slow.max_interval = std::chrono::seconds(60);
  OutputWatch watch(slow);
  Breaches seen;
  auto handle = watch.Watch(dir_, {300000, 0, 0}, "", seen.Action());
  for (int i = 0; i < 2000 && handle->usage().block_bytes == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(1));  // Until the first walk is over.
  }
  Write("new/h/a", 200000);
  chmod((dir_ + "/new/h").c_str(), 0400);
  Write("b", 200000);
  std::unique_lock<std::mutex> lock(seen.mu);
  EXPECT_TRUE(seen.cv.wait_for(lock, std::chrono::seconds(30), [&] {
    return !seen.bounds.empty();
  })) << "only the period would have found it";
}

// An owner's breach action asks the engine to kill the container, which
// can take long (Podman under load: seconds). No other tree's walk may wait
// for it: a second tree breaking its bound meanwhile is found, and acted
// on, while the first action is still out.
TEST_F(OutputWatchTest, ASlowBreachActionNeverDelaysOtherTrees) {
  OutputWatch watch(Quick(milliseconds(50)));
  const std::string a = dir_ + "/a";
  const std::string b = dir_ + "/b";
  fs::create_directories(a);
  fs::create_directories(b);
  std::atomic<bool> first_action_over{false};
  Breaches seen;
  auto slow = watch.Watch(a, {1000, 0, 0}, "", [&](std::string_view) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    first_action_over = true;
  });
  auto other = watch.Watch(b, {1000, 0, 0}, "", seen.Action());
  Write("a/x", 5000);
  for (int i = 0; i < 4000 && slow->violation().empty(); ++i) {
    std::this_thread::sleep_for(milliseconds(1));  // Until the slow action began.
  }
  Write("b/x", 5000);
  ASSERT_TRUE(seen.WaitFor(1));
  EXPECT_FALSE(first_action_over) << "the second breach waited for the first action";
}

// The owner frees what the action captured once its Handle is gone: the
// Handle's destructor must wait for an action in progress.
TEST_F(OutputWatchTest, EndingAWatchWaitsForItsActionInProgress) {
  OutputWatch watch(Quick(milliseconds(50)));
  std::atomic<bool> in_action{false};
  std::atomic<bool> action_done{false};
  Write("a", 10000);
  auto handle = watch.Watch(dir_, {100, 0, 0}, "", [&](std::string_view) {
    in_action = true;
    std::this_thread::sleep_for(milliseconds(200));
    action_done = true;
  });
  for (int i = 0; i < 4000 && !in_action; ++i) std::this_thread::sleep_for(milliseconds(5));
  ASSERT_TRUE(in_action);
  handle.reset();
  EXPECT_TRUE(action_done);
}

// runc puts its own first process into the container's cgroup before it
// makes the container's PID namespace: a first look can find the
// container's processes all in the host's namespace, as gVisor's are. The
// processes that come after must count all the same: here a file held
// open after its name is gone, by a process in a namespace of its own.
TEST_F(OutputWatchTest, ProcessesThatComeAfterTheFirstLookCount) {
  TestCgroup cgroup;
  if (!cgroup.ok()) GTEST_SKIP() << "no cgroup to put the processes in";
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // Their parents exit at once.
  const pid_t early = StartHolder(dir_ + "/early", 0, /*own_namespace=*/false);
  ASSERT_GT(early, 0);
  Reaper early_reaper{early};
  ASSERT_EQ(cgroup.Add(early), "");
  OutputWatch watch(Quick(milliseconds(10)));
  Breaches seen;
  auto handle = watch.Watch(dir_, {2 << 20, 0, 0}, cgroup.id(), seen.Action());
  // Until the first look found it: its empty held file counts as an entry.
  for (int i = 0; i < 4000 && handle->usage().entries == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  ASSERT_EQ(handle->usage().entries, 1);
  const pid_t late = StartHolder(dir_ + "/late", 3, /*own_namespace=*/true);
  ASSERT_GT(late, 0);
  Reaper late_reaper{late};
  ASSERT_EQ(cgroup.Add(late), "");
  EXPECT_TRUE(seen.WaitFor(1)) << "the late process's held file was never counted";
  handle.reset();
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

}  // namespace
}  // namespace coderunner::isolation
