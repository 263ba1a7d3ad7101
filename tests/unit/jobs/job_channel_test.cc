#include "coderunner/jobs/job_channel.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace coderunner::jobs {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Kind = JobEvent::Kind;

// Generous bound, only so a broken wake-up fails instead of hanging the suite.
constexpr auto kHangGuard = 30s;

Clock::time_point Far() { return Clock::now() + kHangGuard; }
Clock::time_point Past() { return Clock::now() - 1s; }
// A waiter's deadline that the hang guard runs out before: a waiter that
// returns within kHangGuard was woken, it did not time out (a waiter that
// times out on a terminal channel, or one with news, returns the same).
Clock::time_point BeyondTheGuard() { return Clock::now() + 2 * kHangGuard; }

// Until `n` threads are blocked in `ch`'s waits. Then a notification is what
// must return them: none of them found its answer already there.
bool UntilWaiting(const JobChannel& ch, size_t n) {
  for (auto until = Clock::now() + kHangGuard; Clock::now() < until;) {
    if (ch.waiters() == n) return true;
    std::this_thread::sleep_for(1ms);
  }
  return ch.waiters() == n;
}

// All events so far, without waiting.
std::vector<JobEvent> Events(JobChannel& ch, bool* terminal = nullptr) {
  std::vector<JobEvent> out;
  EventCursor cursor;
  bool t = ch.WaitEvents(&cursor, Past(), SIZE_MAX, &out);
  if (terminal != nullptr) *terminal = t;
  return out;
}

std::string Joined(const std::vector<JobEvent>& events, Kind kind) {
  std::string s;
  for (const auto& e : events) {
    if (e.kind == kind) s += e.data;
  }
  return s;
}

TEST(JobChannelTest, PublishOutputCapsEachStreamSeparately) {
  struct Case {
    const char* name;
    int64_t cap;
    std::vector<std::pair<bool, std::string>> writes;  // (is_stderr, bytes)
    std::string want_stdout;
    std::string want_stderr;
  };
  const std::vector<Case> cases = {
      {"under the cap", 10, {{false, "abc"}, {true, "xyz"}}, "abc", "xyz"},
      {"exactly the cap", 3, {{false, "abc"}, {true, "xyz"}}, "abc", "xyz"},
      {"one write over the cap is cut", 4, {{false, "abcdef"}}, "abcd", ""},
      {"later writes are cut then dropped",
       5,
       {{false, "abc"}, {false, "def"}, {false, "ghi"}},
       "abcde",
       ""},
      {"stderr has its own budget",
       4,
       {{false, "1234"}, {true, "abcd"}, {false, "5"}, {true, "e"}},
       "1234",
       "abcd"},
      {"zero cap keeps nothing", 0, {{false, "a"}, {true, "b"}}, "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    JobChannel ch(c.cap);
    for (const auto& [is_stderr, bytes] : c.writes) ch.PublishOutput(is_stderr, bytes);
    auto events = Events(ch);
    EXPECT_EQ(Joined(events, Kind::kStdout), c.want_stdout);
    EXPECT_EQ(Joined(events, Kind::kStderr), c.want_stderr);
    for (const auto& e : events) EXPECT_FALSE(e.data.empty()) << "empty event published";
  }
}

TEST(JobChannelTest, PublishOutputAtAppendsOnlyWhatIsNewAndRefusesGaps) {
  struct Case {
    const char* name;
    int64_t offset;
    std::string bytes;
    bool ok;
    std::string after;  // Stdout held afterwards (it starts as "abc").
  };
  const std::vector<Case> cases = {
      {"continues at the end", 3, "de", true, "abcde"},
      {"overlaps the end", 1, "bcdef", true, "abcdef"},
      {"replay of what is held", 0, "abc", true, "abc"},
      {"replay of a prefix", 0, "ab", true, "abc"},
      {"past the end: a gap", 4, "e", false, "abc"},
      {"negative offset", -1, "zabc", false, "abc"},
      {"past the cap: cut", 3, "defghijk", true, "abcdefgh"},
  };
  for (const Case& c : cases) {
    JobChannel ch(/*output_cap=*/8);
    ch.PublishOutput(false, "abc");
    ch.PublishOutput(true, "stderr");
    EXPECT_EQ(ch.PublishOutputAt(false, c.offset, c.bytes), c.ok) << c.name;
    std::string out, err;
    for (const JobEvent& e : Events(ch)) {
      (e.kind == Kind::kStdout ? out : err) += e.data;
    }
    EXPECT_EQ(out, c.after) << c.name;
    EXPECT_EQ(err, "stderr") << c.name << ": the other stream is untouched";
  }
}

TEST(JobChannelTest, PublishOutputAtIgnoresAFullStreamAndATerminalChannel) {
  JobChannel full(/*output_cap=*/3);
  full.PublishOutput(false, "abc");
  EXPECT_TRUE(full.PublishOutputAt(false, 10, "x")) << "full: nothing more is kept anyway";
  JobChannel done(/*output_cap=*/100);
  done.Finish(store::JobStatus::kSucceeded, "");
  EXPECT_TRUE(done.PublishOutputAt(false, 0, "x"));
  EXPECT_EQ(Events(full).size(), 1u);
  EXPECT_EQ(Events(done).size(), 1u) << "only the terminal status";
}

TEST(JobChannelTest, EventsKeepPublicationOrderAndKinds) {
  JobChannel ch(100);
  ch.PublishStatus(store::JobStatus::kRunning);
  ch.PublishOutput(false, "out");
  ch.PublishOutput(true, "err");
  auto events = Events(ch);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].kind, Kind::kStatus);
  EXPECT_EQ(events[0].data, "running");
  EXPECT_EQ(events[1].kind, Kind::kStdout);
  EXPECT_EQ(events[1].data, "out");
  EXPECT_EQ(events[2].kind, Kind::kStderr);
  EXPECT_EQ(events[2].data, "err");
}

TEST(JobChannelTest, FinishAppendsTheTerminalStatusAndKeepsTheRawResult) {
  JobChannel ch(100);
  EXPECT_FALSE(ch.terminal());
  EXPECT_EQ(ch.raw_result_json(), "");
  ch.Finish(store::JobStatus::kSucceeded, R"({"status":"succeeded"})");
  EXPECT_TRUE(ch.terminal());
  EXPECT_EQ(ch.raw_result_json(), R"({"status":"succeeded"})");
  bool terminal = false;
  auto events = Events(ch, &terminal);
  EXPECT_TRUE(terminal);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, Kind::kStatus);
  EXPECT_EQ(events[0].data, "succeeded");
}

TEST(JobChannelTest, EverythingAfterFinishIsIgnored) {
  JobChannel ch(100);
  ch.PublishOutput(false, "before");
  ch.Finish(store::JobStatus::kFailed, "first");
  ch.PublishOutput(false, "after");
  ch.PublishOutput(true, "after");
  ch.PublishStatus(store::JobStatus::kRunning);
  ch.Finish(store::JobStatus::kSucceeded, "second");
  EXPECT_EQ(ch.raw_result_json(), "first");
  auto events = Events(ch);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, "before");
  EXPECT_EQ(events[1].kind, Kind::kStatus);
  EXPECT_EQ(events[1].data, "failed");
}

TEST(JobChannelTest, WaitTerminalTimesOutFalseWhileNotTerminal) {
  JobChannel ch(100);
  EXPECT_FALSE(ch.WaitTerminal(Past()));
  EXPECT_FALSE(ch.WaitTerminal(Clock::now() + 1ms));
}

TEST(JobChannelTest, WaitTerminalIsTrueAtOnceWhenAlreadyTerminal) {
  JobChannel ch(100);
  ch.Finish(store::JobStatus::kCancelled, "");
  EXPECT_TRUE(ch.WaitTerminal(Past()));
}

TEST(JobChannelTest, WaitTerminalWakesOnFinishFromAnotherThread) {
  JobChannel ch(100);
  EXPECT_EQ(ch.waiters(), 0u);
  auto waiter = std::async(std::launch::async, [&] { return ch.WaitTerminal(BeyondTheGuard()); });
  // Blocked before Finish: the wake-up, not the already-terminal check,
  // has to return it.
  ASSERT_TRUE(UntilWaiting(ch, 1));
  ch.Finish(store::JobStatus::kTimeout, "r");
  ASSERT_EQ(waiter.wait_for(kHangGuard), std::future_status::ready)
      << "WaitTerminal was not woken by Finish";
  EXPECT_TRUE(waiter.get());
  EXPECT_EQ(ch.waiters(), 0u);
}

// A waiter on several jobs (POST /v1/jobs/wait) sleeps on the hub: only a
// channel's end counts, and one that comes after `seen` wakes it.
TEST(JobHubTest, WaitFinishAfterWakesOnlyForAChannelEndedAfterSeen) {
  JobHub hub;
  hub.Open("job-a", 100);
  hub.Open("job-b", 100);
  EXPECT_EQ(hub.finished(), 0u);
  hub.Finish("job-unknown", store::JobStatus::kSucceeded, "");  // No channel: no end.
  EXPECT_EQ(hub.finished(), 0u);
  EXPECT_FALSE(hub.WaitFinishAfter(0, std::chrono::steady_clock::now()));
  hub.Finish("job-a", store::JobStatus::kSucceeded, "");
  EXPECT_EQ(hub.finished(), 1u);
  EXPECT_TRUE(hub.WaitFinishAfter(0, std::chrono::steady_clock::now()))
      << "an end after seen must not be missed";
  const uint64_t seen = hub.finished();
  auto waiter =
      std::async(std::launch::async, [&] { return hub.WaitFinishAfter(seen, BeyondTheGuard()); });
  hub.Finish("job-b", store::JobStatus::kFailed, "");
  ASSERT_EQ(waiter.wait_for(kHangGuard), std::future_status::ready)
      << "WaitFinishAfter was not woken by Finish";
  EXPECT_TRUE(waiter.get());
  EXPECT_EQ(hub.Find("job-b"), nullptr);
}

TEST(JobChannelTest, WaitEventsReturnsOnlyWhatFollowsTheCursor) {
  JobChannel ch(100);
  ch.PublishOutput(false, "a");
  ch.PublishOutput(false, "b");
  std::vector<JobEvent> out;
  EventCursor cursor;
  EXPECT_FALSE(ch.WaitEvents(&cursor, Far(), SIZE_MAX, &out));
  ASSERT_EQ(out.size(), 1u);  // Output of one stream that follows itself is one event.
  EXPECT_EQ(out[0].data, "ab");

  // The last entry grows: only its new bytes come.
  ch.PublishOutput(false, "c");
  out.clear();
  EXPECT_FALSE(ch.WaitEvents(&cursor, Far(), SIZE_MAX, &out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Kind::kStdout);
  EXPECT_EQ(out[0].data, "c");

  ch.PublishOutput(true, "d");
  out.clear();
  EXPECT_FALSE(ch.WaitEvents(&cursor, Far(), SIZE_MAX, &out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Kind::kStderr);
  EXPECT_EQ(out[0].data, "d");

  // Nothing new: returns at the deadline with nothing.
  out.clear();
  EXPECT_FALSE(ch.WaitEvents(&cursor, Clock::now() + 1ms, SIZE_MAX, &out));
  EXPECT_TRUE(out.empty());
}

TEST(JobChannelTest, WaitEventsAppendsToOut) {
  JobChannel ch(100);
  ch.PublishOutput(false, "x");
  std::vector<JobEvent> out = {{Kind::kStatus, "kept"}};
  EventCursor cursor;
  ch.WaitEvents(&cursor, Far(), SIZE_MAX, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].data, "kept");
  EXPECT_EQ(out[1].data, "x");
}

TEST(JobChannelTest, WaitEventsWakesOnPublishFromAnotherThread) {
  JobChannel ch(100);
  auto waiter = std::async(std::launch::async, [&] {
    std::vector<JobEvent> out;
    EventCursor cursor;
    bool terminal = ch.WaitEvents(&cursor, BeyondTheGuard(), SIZE_MAX, &out);
    return std::make_tuple(out, terminal);
  });
  // Blocked on an empty log before anything is published.
  ASSERT_TRUE(UntilWaiting(ch, 1));
  ch.PublishOutput(false, "hello");
  ASSERT_EQ(waiter.wait_for(kHangGuard), std::future_status::ready)
      << "WaitEvents was not woken by PublishOutput";
  auto [out, terminal] = waiter.get();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Kind::kStdout);
  EXPECT_EQ(out[0].data, "hello");
  EXPECT_FALSE(terminal);
  EXPECT_EQ(ch.waiters(), 0u);
}

TEST(JobChannelTest, WaitEventsWakesOnFinishAndReportsTerminal) {
  JobChannel ch(100);
  ch.PublishOutput(false, "seen");
  EventCursor cursor;
  std::vector<JobEvent> seen;
  ch.WaitEvents(&cursor, Past(), SIZE_MAX, &seen);
  auto waiter = std::async(std::launch::async, [&] {
    std::vector<JobEvent> out;
    bool terminal = ch.WaitEvents(&cursor, BeyondTheGuard(), SIZE_MAX, &out);
    return std::make_tuple(out, terminal);
  });
  // Blocked with everything read before Finish.
  ASSERT_TRUE(UntilWaiting(ch, 1));
  ch.Finish(store::JobStatus::kOom, "");
  ASSERT_EQ(waiter.wait_for(kHangGuard), std::future_status::ready)
      << "WaitEvents was not woken by Finish";
  EXPECT_EQ(ch.waiters(), 0u);
  auto [out, terminal] = waiter.get();
  EXPECT_TRUE(terminal);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Kind::kStatus);
  EXPECT_EQ(out[0].data, "oom");
}

TEST(JobChannelTest, WaitEventsOnATerminalChannelReturnsAtOnce) {
  JobChannel ch(100);
  ch.Finish(store::JobStatus::kSucceeded, "");
  std::vector<JobEvent> out;
  EventCursor cursor;
  ch.WaitEvents(&cursor, Past(), SIZE_MAX, &out);
  out.clear();
  // Already read everything: still returns at once, because it is terminal.
  auto done =
      std::async(std::launch::async, [&] { return ch.WaitEvents(&cursor, Far(), SIZE_MAX, &out); });
  ASSERT_EQ(done.wait_for(kHangGuard), std::future_status::ready);
  EXPECT_TRUE(done.get());
  EXPECT_TRUE(out.empty());
}

TEST(JobChannelTest, CancelTokenIsPerChannel) {
  JobChannel a(1), b(1);
  EXPECT_NE(&a.cancel_token(), &b.cancel_token());
  EXPECT_EQ(&a.cancel_token(), &a.cancel_token());
}

TEST(JobHubTest, OpenFindFinishLifecycle) {
  JobHub hub;
  EXPECT_EQ(hub.Find("job-1"), nullptr);
  EXPECT_EQ(hub.size(), 0u);
  auto ch = hub.Open("job-1", 100);
  ASSERT_NE(ch, nullptr);
  EXPECT_EQ(hub.size(), 1u);
  EXPECT_EQ(hub.Find("job-1"), ch);
  EXPECT_EQ(hub.Find("job-2"), nullptr);

  hub.Finish("job-1", store::JobStatus::kSucceeded, "raw");
  EXPECT_EQ(hub.Find("job-1"), nullptr);
  EXPECT_EQ(hub.size(), 0u);
  // The holder's channel was finished with the result.
  EXPECT_TRUE(ch->terminal());
  EXPECT_EQ(ch->raw_result_json(), "raw");
}

TEST(JobHubTest, ChannelsAreIndependentAndUseTheirOwnCap) {
  JobHub hub;
  auto a = hub.Open("a", 2);
  auto b = hub.Open("b", 5);
  ASSERT_NE(a, b);
  a->PublishOutput(false, "123456");
  b->PublishOutput(false, "123456");
  EXPECT_EQ(Joined(Events(*a), Kind::kStdout), "12");
  EXPECT_EQ(Joined(Events(*b), Kind::kStdout), "12345");
  hub.Finish("a", store::JobStatus::kFailed, "");
  EXPECT_EQ(hub.Find("b"), b);
  EXPECT_FALSE(b->terminal());
  EXPECT_EQ(hub.size(), 1u);
}

TEST(JobHubTest, FinishOfUnknownIdIsANoOp) {
  JobHub hub;
  auto ch = hub.Open("a", 10);
  hub.Finish("unknown", store::JobStatus::kError, "");
  EXPECT_EQ(hub.size(), 1u);
  EXPECT_FALSE(ch->terminal());
  // A second Finish of the same id does nothing either.
  hub.Finish("a", store::JobStatus::kSucceeded, "one");
  hub.Finish("a", store::JobStatus::kError, "two");
  EXPECT_EQ(ch->raw_result_json(), "one");
}

TEST(JobHubTest, WaiterHoldingTheChannelIsWokenByHubFinish) {
  JobHub hub;
  auto ch = hub.Open("job-1", 100);
  auto waiter = std::async(std::launch::async, [ch] { return ch->WaitTerminal(BeyondTheGuard()); });
  ASSERT_TRUE(UntilWaiting(*ch, 1));  // Blocked before the hub finishes it.
  hub.Finish("job-1", store::JobStatus::kCancelled, "");
  EXPECT_EQ(hub.Find("job-1"), nullptr);
  ASSERT_EQ(waiter.wait_for(kHangGuard), std::future_status::ready)
      << "WaitTerminal was not woken by JobHub::Finish";
  EXPECT_TRUE(waiter.get());
}

TEST(JobHubTest, ReopeningAFinishedIdGivesAFreshChannel) {
  JobHub hub;
  auto first = hub.Open("job-1", 100);
  hub.Finish("job-1", store::JobStatus::kSucceeded, "");
  auto second = hub.Open("job-1", 100);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second, first);
  EXPECT_FALSE(second->terminal());
}

}  // namespace
}  // namespace coderunner::jobs
