// JobChannel under floods of one-byte output: the event log stays bounded
// (entries and bytes) and every reader, live or late, gets the bytes intact
// and in order.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/jobs/job_channel.h"

namespace coderunner::jobs {
namespace {

using Kind = JobEvent::Kind;

constexpr size_t kMiB = 1 << 20;

std::chrono::steady_clock::time_point Past() {
  return std::chrono::steady_clock::now() - std::chrono::seconds(1);
}

// One reader: what it got per stream, and how.
struct Reader {
  EventCursor cursor;
  std::string bytes[2];
  size_t output_events = 0;
  size_t reads = 0;
  bool adjacent_same_stream = false;  // Two events of one stream in a row in one read.
  bool empty_event = false;
  bool terminal = false;

  // Reads what is there without waiting.
  void Read(JobChannel& ch, size_t max_output_bytes = SIZE_MAX) {
    std::vector<JobEvent> out;
    terminal = ch.WaitEvents(&cursor, Past(), max_output_bytes, &out);
    ++reads;
    for (size_t i = 0; i < out.size(); ++i) {
      const JobEvent& e = out[i];
      if (e.kind != Kind::kStdout && e.kind != Kind::kStderr) continue;
      bytes[e.kind == Kind::kStderr ? 1 : 0] += e.data;
      ++output_events;
      empty_event |= e.data.empty();
      adjacent_same_stream |= i > 0 && out[i - 1].kind == e.kind;
    }
  }
};

struct FloodCase {
  const char* name;
  size_t writes;        // One-byte PublishOutput calls.
  size_t stderr_every;  // Every n-th write goes to stderr (0: none, 1: all).
  char byte;
  int64_t cap;             // Per stream.
  size_t live_read_every;  // A live reader reads after this many writes.
  size_t max_entries;      // Bound on log_entries() after Finish.
};

bool ToStderr(const FloodCase& c, size_t i) {
  return c.stderr_every != 0 && i % c.stderr_every == 0;
}

TEST(JobChannelFloodTest, OneByteWritesMakeABoundedLogWithTheBytesIntactAndInOrder) {
  const size_t alternating_bound = JobChannel::kMaxOutputEntries + 1;
  const std::vector<FloodCase> cases = {
      {"1 MiB of one-byte stdout writes", kMiB, 0, 'x', kMiB, 4096, 2},
      {"1 MiB of single record separators", kMiB, 0, '\x1e', kMiB, 4096, 2},
      {"1 MiB of one-byte stderr writes", kMiB, 1, '\x1e', kMiB, 4096, 2},
      {"2 MiB of one-byte writes over a 1 MiB cap", 2 * kMiB, 0, 'x', kMiB, 4096, 2},
      {"a live reader after every write", 64 << 10, 0, '\x1e', kMiB, 1, 2},
      {"streams switching at every byte", 2 * kMiB, 2, '\x1e', kMiB, 4096, alternating_bound},
      {"streams switching every third byte", kMiB, 3, 'x', kMiB, 1000, alternating_bound},
      {"streams switching, a live reader after every write", 64 << 10, 2, 'x', kMiB, 1,
       alternating_bound},
  };
  for (const FloodCase& c : cases) {
    SCOPED_TRACE(c.name);
    JobChannel ch(c.cap);
    ch.PublishStatus(store::JobStatus::kRunning);
    Reader live;
    std::string want[2];
    for (size_t i = 0; i < c.writes; ++i) {
      bool err = ToStderr(c, i);
      ch.PublishOutput(err, std::string_view(&c.byte, 1));
      if (static_cast<int64_t>(want[err ? 1 : 0].size()) < c.cap) want[err ? 1 : 0] += c.byte;
      if ((i + 1) % c.live_read_every == 0) live.Read(ch);
    }
    ch.Finish(store::JobStatus::kSucceeded, "");
    live.Read(ch);
    Reader late;  // Attached after the end: the whole log at once.
    late.Read(ch);

    EXPECT_LE(ch.log_entries(), c.max_entries + 2);  // + the two statuses.
    for (const Reader* r : {&live, &late}) {
      EXPECT_TRUE(r->terminal);
      EXPECT_TRUE(r->bytes[0] == want[0]) << r->bytes[0].size() << " vs " << want[0].size();
      EXPECT_TRUE(r->bytes[1] == want[1]) << r->bytes[1].size() << " vs " << want[1].size();
      EXPECT_FALSE(r->empty_event);
      EXPECT_FALSE(r->adjacent_same_stream) << "output of one stream not merged";
      // Bounded by the reads and the log, not by the writes (a read can end
      // inside the last entry, which may hold both streams).
      EXPECT_LE(r->output_events, 2 * r->reads + ch.log_entries());
    }
  }
}

TEST(JobChannelFloodTest, EventsKeepTheirPlaceBetweenFloodsAndStreamsInterleaveExactly) {
  JobChannel ch(kMiB);
  for (int i = 0; i < 1000; ++i) ch.PublishOutput(false, "a");
  ch.PublishStage(R"({"name":"run"})");
  for (int i = 0; i < 1000; ++i) ch.PublishOutput(false, "b");
  // Under kMaxOutputEntries switches, the interleaving is exact.
  for (int i = 0; i < 100; ++i) {
    ch.PublishOutput(true, "e");
    ch.PublishOutput(false, "o");
  }
  ch.Finish(store::JobStatus::kFailed, "");
  std::vector<JobEvent> out;
  EventCursor cursor;
  EXPECT_TRUE(ch.WaitEvents(&cursor, Past(), SIZE_MAX, &out));
  ASSERT_EQ(out.size(), 3u + 200u + 1u);
  EXPECT_EQ(out[0].data, std::string(1000, 'a'));
  EXPECT_EQ(out[1].kind, Kind::kStage);
  EXPECT_EQ(out[2].data, std::string(1000, 'b'));
  for (size_t i = 0; i < 200; ++i) {
    EXPECT_EQ(out[3 + i].kind, i % 2 == 0 ? Kind::kStderr : Kind::kStdout) << i;
    EXPECT_EQ(out[3 + i].data, i % 2 == 0 ? "e" : "o") << i;
  }
  EXPECT_EQ(out.back().kind, Kind::kStatus);
  EXPECT_EQ(out.back().data, "failed");
}

TEST(JobChannelFloodTest, AReadCarriesAtMostItsBudgetAndTerminalComesLast) {
  // (budget, bytes written): a budget of one byte reads a 64 KiB flood a
  // byte a read (a MiB of such reads took most of a minute under the
  // sanitizers); the others a MiB.
  const std::vector<std::pair<size_t, size_t>> budgets = {
      {1, 64 << 10}, {4096, kMiB}, {65536, kMiB}, {3 * kMiB, kMiB}};
  for (const auto& [budget, flood] : budgets) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    JobChannel ch(kMiB);
    for (size_t i = 0; i < flood; ++i) ch.PublishOutput(i % 2 == 1, "\x1e");
    ch.Finish(store::JobStatus::kSucceeded, "");
    EventCursor cursor;
    std::string got[2];
    bool terminal = false;
    bool status_seen = false;
    size_t reads = 0;
    while (!terminal && reads < 2 * flood) {
      std::vector<JobEvent> out;
      terminal = ch.WaitEvents(&cursor, Past(), budget, &out);
      ++reads;
      size_t output = 0;
      for (const auto& e : out) {
        if (e.kind == Kind::kStatus) {
          status_seen = true;
          continue;
        }
        EXPECT_FALSE(status_seen) << "output after the terminal status";
        output += e.data.size();
        got[e.kind == Kind::kStderr ? 1 : 0] += e.data;
      }
      EXPECT_LE(output, budget);
    }
    EXPECT_TRUE(terminal);
    EXPECT_TRUE(status_seen);
    EXPECT_EQ(got[0], std::string(flood / 2, '\x1e'));
    EXPECT_EQ(got[1], std::string(flood / 2, '\x1e'));
    EXPECT_LE(reads, flood / budget + 2);
  }
}

}  // namespace
}  // namespace coderunner::jobs
