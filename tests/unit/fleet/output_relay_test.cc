// Live output across a fleet (OutputRelay through JobService): a job that
// runs on node A and writes output is followed through node B's channel;
// B's events hold the output once, in order, after "running" and before
// the terminal status, a node that follows late gets all of it (a replay
// the others drop), and a gap makes the follower ask again.
#include "fleet/output_relay.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/jobs/job_channel.h"
#include "unit/fleet/fleet_node.h"
#include "unit/jobs/fleet_fakes.h"

namespace coderunner::jobs {
namespace {

using fleet::OutputRelay;
using fleet::OutputRelayDeps;
using fleet_test::Node;
using store::JobNotice;
using store::JobStatus;

// A reader of one channel's events, from the start.
struct Follower {
  explicit Follower(std::shared_ptr<JobChannel> channel) : ch(std::move(channel)) {}
  // Reads until stdout holds `bytes` bytes or the job is terminal.
  void ReadUntil(size_t bytes) {
    const auto deadline = std::chrono::steady_clock::now() + testutil::kFleetHangGuard;
    while (!done && Stdout().size() < bytes && std::chrono::steady_clock::now() < deadline) {
      done = ch->WaitEvents(&cursor, deadline, 1 << 20, &events);
    }
  }
  void ReadToEnd() { ReadUntil(static_cast<size_t>(-1)); }
  std::string Stdout() const {
    std::string out;
    for (const JobEvent& e : events) {
      if (e.kind == JobEvent::Kind::kStdout) out += e.data;
    }
    return out;
  }
  // The events as "status:<name>" or "stdout", in order, repeats folded.
  std::vector<std::string> Shape() const {
    std::vector<std::string> shape;
    for (const JobEvent& e : events) {
      std::string s = e.kind == JobEvent::Kind::kStatus ? "status:" + e.data : "stdout";
      if (shape.empty() || shape.back() != s) shape.push_back(s);
    }
    return shape;
  }

  std::shared_ptr<JobChannel> ch;
  EventCursor cursor;
  std::vector<JobEvent> events;
  bool done = false;
};

// Counts the kWatch notices on the bus for one job.
class WatchCounter {
 public:
  WatchCounter(testutil::NoticeBus& bus, std::string id) : bus_(bus), id_(std::move(id)) {
    subscription_ = bus.Subscribe([this](const JobNotice& n) {
      if (n.kind != JobNotice::Kind::kWatch || n.job_id != id_) return;
      std::lock_guard<std::mutex> lock(mu_);
      ++count_;
      cv_.notify_all();
    });
  }
  ~WatchCounter() { bus_.Unsubscribe(subscription_); }
  int count() {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }
  bool WaitMoreThan(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, testutil::kFleetHangGuard, [&] { return count_ > n; });
  }

 private:
  testutil::NoticeBus& bus_;
  const std::string id_;
  int subscription_ = -1;
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
};

class OutputRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-relay-XXXXXX";
    root_ = mkdtemp(tmpl);
    db_ = std::make_unique<fleet_test::FleetDatabase>();
    a_ = std::make_unique<Node>("node-a", db_->conninfo(), bus_);
    b_ = std::make_unique<Node>("node-b", db_->conninfo(), bus_);
  }
  void TearDown() override {
    a_->runner.ReleaseAll();
    c_.reset();
    b_.reset();
    a_.reset();
    db_.reset();
    std::filesystem::remove_all(root_);
  }
  // Starts only A (B claims nothing), which runs a job that writes
  // `chunks` and then holds until released. Returns the job's id.
  std::string RunHeldOnA(std::vector<std::string> chunks) {
    a_->runner.SetLiveOutput(std::move(chunks));
    a_->runner.Hold(true);
    EXPECT_TRUE(a_->service->Start().ok());
    std::string id = a_->Submit();
    EXPECT_TRUE(a_->runner.WaitStarted(1));
    return id;
  }

  std::string root_;
  std::unique_ptr<fleet_test::FleetDatabase> db_;  // Dropped after the nodes.
  testutil::NoticeBus bus_;
  std::unique_ptr<Node> a_;
  std::unique_ptr<Node> b_;
  std::unique_ptr<Node> c_;
};

// Flush waits on a forwarder that ends meanwhile; an OnWatch for another job
// on the notice thread reaps it from the map before Flush takes the lock
// back. Flush once read the reaped forwarder (heap-use-after-free under
// ASan, seen in CI in PgFleetTest.ADrainedNodeRejoins...): it must hold it.
TEST(OutputRelayRaceTest, AFlushOutlivesTheReapOfTheForwarderItWaitsOn) {
  testutil::NoticeBus bus;
  testutil::FakeJobNotices notices(bus);
  JobHub hub;
  OutputRelay relay({&hub, &notices, [](const std::string&) { return true; }});
  hub.Open("job-other", 1 << 20);
  std::atomic<bool> done{false};
  std::thread reaper([&] {
    while (!done) relay.OnWatch("job-other");  // Each one reaps what is done.
  });
  for (int i = 0; i < 300; ++i) {
    const std::string id = "job-" + std::to_string(i);
    std::shared_ptr<JobChannel> ch = hub.Open(id, 1 << 20);
    relay.OnWatch(id);
    ch->PublishOutput(false, "x");
    ch->Finish(JobStatus::kSucceeded, "");  // Terminal: the forwarder ends now.
    relay.Flush(id);
    hub.Finish(id, JobStatus::kSucceeded, "");
  }
  done = true;
  reaper.join();
  relay.Stop();
}

TEST_F(OutputRelayTest, OutputOfAJobRunningOnOneNodeReachesTheOtherOnceAndInOrder) {
  // A chunk past kMaxNoticeOutputBytes goes out as several notices.
  const std::string big(3 * store::kMaxNoticeOutputBytes + 17, 'x');
  const std::vector<std::string> chunks = {"line1\n", "line2\n", big, "line3\n"};
  std::string expected;
  for (const auto& c : chunks) expected += c;
  std::string id = RunHeldOnA(chunks);
  Follower b(b_->service->Channel(id));
  ASSERT_NE(b.ch, nullptr);
  b.ReadUntil(expected.size());
  EXPECT_FALSE(b.done) << "B has the output while the job still runs";
  EXPECT_EQ(b.Stdout(), expected);
  a_->runner.ReleaseAll();
  b.ReadToEnd();
  ASSERT_TRUE(b.done);
  EXPECT_EQ(b.Stdout(), expected) << "each byte once";
  EXPECT_EQ(b.Shape(), (std::vector<std::string>{"status:running", "stdout", "status:succeeded"}));
  EXPECT_EQ(b_->hub.Find(id), nullptr);
}

TEST_F(OutputRelayTest, ANodeThatFollowsLateGetsTheWholeOutput) {
  const std::string expected = "one\ntwo\nthree\n";
  std::string id = RunHeldOnA({"one\n", "two\n", "three\n"});
  Follower b(b_->service->Channel(id));
  ASSERT_NE(b.ch, nullptr);
  b.ReadUntil(expected.size());
  ASSERT_EQ(b.Stdout(), expected);
  // C joins now: A sends everything again; B drops what it has.
  c_ = std::make_unique<Node>("node-c", db_->conninfo(), bus_);
  Follower c(c_->service->Channel(id));
  ASSERT_NE(c.ch, nullptr);
  c.ReadUntil(expected.size());
  EXPECT_EQ(c.Stdout(), expected);
  a_->runner.ReleaseAll();
  b.ReadToEnd();
  c.ReadToEnd();
  EXPECT_EQ(b.Stdout(), expected);
  EXPECT_EQ(c.Stdout(), expected);
  EXPECT_EQ(c.Shape(), (std::vector<std::string>{"status:running", "stdout", "status:succeeded"}));
}

TEST_F(OutputRelayTest, AGapMakesTheFollowerAskForAReplay) {
  std::string id = RunHeldOnA({"abc"});
  WatchCounter watches(bus_, id);
  Follower b(b_->service->Channel(id));
  ASSERT_NE(b.ch, nullptr);
  b.ReadUntil(3);
  ASSERT_EQ(b.Stdout(), "abc");
  const int before = watches.count();
  ASSERT_GE(before, 1);
  // Bytes at offset 100 of a stream B holds 3 bytes of: 97 are missing.
  JobNotice gap{JobNotice::Kind::kOutput, id};
  gap.offset = 100;
  gap.data = "zzz";
  bus_.Publish(gap);
  ASSERT_TRUE(watches.WaitMoreThan(before)) << "B asked again";
  a_->runner.ReleaseAll();
  b.ReadToEnd();
  EXPECT_EQ(b.Stdout(), "abc") << "the gap's bytes were not appended, the replay dropped";
}

}  // namespace
}  // namespace coderunner::jobs
