#include "coderunner/isolation/init_trailer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace coderunner::isolation {
namespace {

const std::string kMarker =
    "\x1e"
    "coderunner-init ";

std::string Trailer(const std::string& json) { return kMarker + json + "\n"; }

TEST(InitTrailerTest, ParsesValidTrailerAtTheEnd) {
  std::string t = Trailer(
      R"({"exit_code":3,"signal":0,"wall_us":12345,"cpu_us":6789,"memory_peak_bytes":1048576,"oom_kills":0})");
  std::string tail = "program output\n" + t;
  auto p = ParseInitTrailer(tail);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->exit_code, 3);
  EXPECT_EQ(p->signal, 0);
  EXPECT_EQ(p->wall_us, 12345);
  EXPECT_EQ(p->cpu_us, 6789);
  EXPECT_EQ(p->memory_peak_bytes, 1048576);
  EXPECT_EQ(p->oom_kills, 0);
  EXPECT_EQ(p->length, t.size());
  EXPECT_EQ(tail.substr(tail.size() - p->length), t);
}

TEST(InitTrailerTest, ParsesOutputFields) {
  struct Case {
    std::string json;
    int64_t bytes;
    int64_t used;
    int64_t entries;
    std::string violation;
    bool rolled_back;
    bool stopped = false;
    bool reusable = false;
  };
  const std::vector<Case> cases = {
      {R"({"exit_code":0})", -1, -1, -1, "", false},
      {R"({"exit_code":137,"signal":9,"stopped":1})", -1, -1, -1, "", false, true},
      {R"({"exit_code":0,"reusable":1})", -1, -1, -1, "", false, false, true},
      {R"({"exit_code":0,"reusable":0})", -1, -1, -1, "", false, false, false},
      {R"({"exit_code":0,"output_bytes":5,"output_entries":2,"output_violation":"","output_rolled_back":0})",
       5, -1, 2, "", false},
      {R"({"exit_code":137,"output_bytes":9,"output_used_bytes":8192,"output_entries":1,"output_violation":"too_large","output_rolled_back":1})",
       9, 8192, 1, "too_large", true},
      {R"({"exit_code":0,"output_violation":7})", -1, -1, -1, "", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    auto p = ParseInitTrailer(Trailer(c.json));
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->output_bytes, c.bytes);
    EXPECT_EQ(p->output_used_bytes, c.used);
    EXPECT_EQ(p->output_entries, c.entries);
    EXPECT_EQ(p->output_violation, c.violation);
    EXPECT_EQ(p->output_rolled_back, c.rolled_back);
    EXPECT_EQ(p->stopped, c.stopped);
    EXPECT_EQ(p->reusable, c.reusable);
  }
}

TEST(InitTrailerTest, TrailerAfterUnterminatedOutputLine) {
  std::string t = Trailer(R"({"exit_code":137,"signal":9})");
  auto p = ParseInitTrailer("no newline here" + t);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->signal, 9);
  EXPECT_EQ(p->exit_code, 137);
  EXPECT_EQ(p->length, t.size());
}

TEST(InitTrailerTest, MissingFieldsTakeDefaults) {
  auto p = ParseInitTrailer(Trailer("{}"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->exit_code, 0);
  EXPECT_EQ(p->signal, 0);
  EXPECT_EQ(p->wall_us, 0);
  EXPECT_EQ(p->cpu_us, -1);
  EXPECT_EQ(p->memory_peak_bytes, -1);
  EXPECT_EQ(p->oom_kills, -1);
}

TEST(InitTrailerTest, MistypedFieldsTakeDefaults) {
  auto p = ParseInitTrailer(Trailer(R"({"exit_code":"1","cpu_us":1.5,"oom_kills":null})"));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->exit_code, 0);
  EXPECT_EQ(p->cpu_us, -1);
  EXPECT_EQ(p->oom_kills, -1);
}

TEST(InitTrailerTest, LastTrailerWinsOverAForgedEarlierOne) {
  std::string forged = Trailer(R"({"exit_code":0,"cpu_us":1})");
  std::string real = Trailer(R"({"exit_code":2,"cpu_us":999})");
  auto p = ParseInitTrailer(forged + real);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->exit_code, 2);
  EXPECT_EQ(p->cpu_us, 999);
  EXPECT_EQ(p->length, real.size());
}

TEST(InitTrailerTest, RejectsAnythingButAValidTrailerAtTheEnd) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"empty", ""},
      {"no trailer", "just output\n"},
      {"trailer not at end", Trailer(R"({"exit_code":1})") + "more output\n"},
      {"trailer without newline", kMarker + R"({"exit_code":1})"},
      {"trailer then unterminated text", Trailer(R"({"exit_code":1})") + "x"},
      {"garbage json", Trailer("{not json")},
      {"json array", Trailer("[1,2]")},
      {"json number", Trailer("5")},
      {"empty json", Trailer("")},
      {"marker without record separator", "coderunner-init {\"exit_code\":1}\n"},
      {"truncated start of marker", std::string("oderunner-init {}\n")},
      // The job shares init's stderr: its own line may pose as a trailer.
      // init's is one flat object of a few hundred bytes, nothing else is.
      {"nested value", Trailer(R"({"exit_code":1,"x":[1]})")},
      {"deep nesting",
       Trailer(R"({"x":)" + std::string(100000, '[') + std::string(100000, ']') + "}")},
      {"over 4 KiB", Trailer(R"({"exit_code":1,"pad":")" + std::string(5000, 'a') + "\"}")},
      {"not UTF-8", Trailer("{\"exit_code\":1,\"eof\":\"\xFF\"}")},
  };
  for (const auto& [name, tail] : cases) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(ParseInitTrailer(tail).has_value());
  }
}

// ---- TrailerFilter ----

const std::string kRealTrailer = Trailer(
    R"({"exit_code":0,"signal":0,"wall_us":1,"cpu_us":2,"memory_peak_bytes":3,"oom_kills":0})");

// Feeds `stream` to a TrailerFilter in chunks of `chunk` bytes (0 = all at
// once) and collects what it emits.
class FilterRun {
 public:
  void Feed(std::string_view bytes, size_t chunk = 0) {
    size_t step = chunk == 0 ? std::max<size_t>(bytes.size(), 1) : chunk;
    for (size_t i = 0; i < bytes.size(); i += step) {
      filter_.Feed(bytes.substr(i, step), [this](std::string_view s) { out_.append(s); });
      max_held_ = std::max(max_held_, fed_ + std::min(step, bytes.size() - i) - out_.size());
      fed_ += std::min(step, bytes.size() - i);
    }
  }
  void Finish() {
    filter_.Finish([this](std::string_view s) { out_.append(s); });
  }
  const std::string& out() const { return out_; }
  size_t held() const { return fed_ - out_.size(); }
  size_t max_held() const { return max_held_; }

 private:
  TrailerFilter filter_;
  std::string out_;
  size_t fed_ = 0;
  size_t max_held_ = 0;
};

std::string FilterAll(const std::string& stream, size_t chunk) {
  FilterRun run;
  run.Feed(stream, chunk);
  run.Finish();
  return run.out();
}

const std::vector<size_t> kChunkSizes = {1, 2, 3, 5, 7, 16, 17, 64, 0};

TEST(TrailerFilterTest, EmitsEverythingButTheTrailerExactlyOnceInOrderForAnyChunking) {
  const std::vector<std::pair<const char*, std::string>> outputs = {
      {"empty", ""},
      {"plain lines", "line 1\nline 2\n"},
      {"unterminated last line", "no newline"},
      {"record separators that are not a marker",
       "a\x1e"
       "b\x1e\x1e"
       "c\n\x1e"},
      {"marker prefix then other bytes",
       "\x1e"
       "coderunner-\n\x1e"
       "coderunner-inix\n"},
      {"binary", std::string("\0\xff\x1e\n\x01", 5)},
  };
  for (const auto& [name, output] : outputs) {
    for (size_t chunk : kChunkSizes) {
      SCOPED_TRACE(std::string(name) + ", chunk " + std::to_string(chunk));
      EXPECT_EQ(FilterAll(output + kRealTrailer, chunk), output);
      // Without a trailer (init killed), everything comes through.
      EXPECT_EQ(FilterAll(output, chunk), output);
    }
  }
}

TEST(TrailerFilterTest, TrailerFedByteByByteIsNeverEmitted) {
  const std::string output = "some stderr\n";
  FilterRun run;
  run.Feed(output);
  EXPECT_EQ(run.out(), output);
  for (char c : kRealTrailer) {
    run.Feed(std::string_view(&c, 1));
    EXPECT_EQ(run.out(), output) << "a byte of the trailer leaked";
  }
  run.Finish();
  EXPECT_EQ(run.out(), output);
}

TEST(TrailerFilterTest, FakeTrailerInTheMiddleIsEmittedOnceMoreOutputFollows) {
  const std::string fake = Trailer(R"({"exit_code":0})");
  const std::string before = "before\n";
  const std::string after = "more output\n";
  for (size_t chunk : kChunkSizes) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    FilterRun run;
    run.Feed(before + fake + after, chunk);
    // Released as soon as the bytes after it show it is not the last line.
    EXPECT_EQ(run.out(), before + fake + after);
    run.Feed(kRealTrailer, chunk);
    run.Finish();
    EXPECT_EQ(run.out(), before + fake + after);
  }
}

TEST(TrailerFilterTest, ForgedTrailersBackToBackBeforeTheRealOneAreEmitted) {
  const std::string fake = Trailer(R"({"exit_code":7})");
  for (size_t chunk : kChunkSizes) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    EXPECT_EQ(FilterAll(fake + fake + kRealTrailer, chunk), fake + fake);
  }
}

TEST(TrailerFilterTest, HeldSpanLongerThan512BytesIsReleased) {
  const std::string lookalike = kMarker + std::string(600, 'x');  // No newline.
  for (size_t chunk : kChunkSizes) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    FilterRun run;
    run.Feed("a");
    run.Feed(lookalike, chunk);
    // Released before the end of the stream.
    EXPECT_EQ(run.out(), "a" + lookalike);
    EXPECT_LE(run.max_held(), 513u);
    run.Feed(kRealTrailer, chunk);
    run.Finish();
    EXPECT_EQ(run.out(), "a" + lookalike);
  }
}

TEST(TrailerFilterTest, MemoryStaysBoundedOnAStreamOfMarkerPrefixes) {
  FilterRun run;
  for (int i = 0; i < 200; ++i) run.Feed(kMarker + "{", 1);
  EXPECT_LE(run.max_held(), 513u);
  run.Finish();
  std::string expected;
  for (int i = 0; i < 200; ++i) expected += kMarker + "{";
  EXPECT_EQ(run.out(), expected);
}

TEST(TrailerFilterTest, FloodsOfMarkerBytesComeOutWholeAtMostOnePiecePerFeed) {
  std::string prefixes;  // Starts of the marker that never complete.
  while (prefixes.size() < (1 << 20)) prefixes += kMarker.substr(0, 6);
  std::string markers;  // Whole markers, no newline.
  while (markers.size() < (1 << 20)) markers += kMarker;
  const std::string separators(1 << 20, '\x1e');
  struct Case {
    const char* name;
    const std::string& flood;
    size_t chunk;  // 0 = all at once.
  };
  const std::vector<Case> cases = {
      {"1 MiB of record separators, one per feed", separators, 1},
      {"1 MiB of record separators, 16 KiB feeds", separators, 16 << 10},
      {"1 MiB of record separators in one feed", separators, 0},
      {"marker prefixes, one byte per feed", prefixes, 1},
      {"whole markers, 7-byte feeds", markers, 7},
      {"whole markers in one feed", markers, 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TrailerFilter filter;
    std::string out;
    size_t emits = 0;
    size_t feeds = 0;
    size_t max_held = 0;
    auto emit = [&](std::string_view s) {
      EXPECT_FALSE(s.empty());
      out.append(s);
      ++emits;
    };
    size_t step = c.chunk == 0 ? c.flood.size() : c.chunk;
    for (size_t at = 0; at < c.flood.size(); at += step, ++feeds) {
      filter.Feed(std::string_view(c.flood).substr(at, step), emit);
      max_held = std::max(max_held, std::min(at + step, c.flood.size()) - out.size());
    }
    filter.Feed(kRealTrailer, emit);
    filter.Finish(emit);
    EXPECT_TRUE(out == c.flood) << out.size() << " vs " << c.flood.size();
    EXPECT_LE(emits, feeds + 2);
    EXPECT_LE(max_held, TrailerFilter::kMaxTrailer + step);
  }
}

TEST(TrailerFilterTest, FinishEmitsAHeldSpanThatIsNotExactlyATrailer) {
  const std::vector<std::pair<const char*, std::string>> tails = {
      {"lone record separator", "\x1e"},
      {"marker prefix",
       "\x1e"
       "coderunner-in"},
      {"marker alone", kMarker},
      {"trailer without newline", kMarker + R"({"exit_code":1})"},
      {"bad json line", Trailer("{bad json")},
      {"json array line", Trailer("[1]")},
  };
  for (const auto& [name, tail] : tails) {
    SCOPED_TRACE(name);
    FilterRun run;
    run.Feed("out\n" + tail);
    EXPECT_EQ(run.out().substr(0, 4), "out\n");
    run.Finish();
    EXPECT_EQ(run.out(), "out\n" + tail);
  }
}

TEST(TrailerFilterTest, FinishWithNothingHeldEmitsNothing) {
  int calls = 0;
  TrailerFilter f;
  f.Finish([&](std::string_view) { ++calls; });
  EXPECT_EQ(calls, 0);
  FilterRun run;
  run.Feed(kRealTrailer);
  run.Finish();
  EXPECT_EQ(run.out(), "");
}

// What the filter withholds must be what ParseInitTrailer strips from the
// whole stderr: here the program wrote a marker line without a newline just
// before exiting, and the init appended its trailer to that line.
TEST(TrailerFilterTest, TrailerAfterAnUnterminatedMarkerLineIsStillWithheld) {
  const std::string program = "out\n" + kMarker + "partial";
  const std::string stderr_all = program + kRealTrailer;
  auto parsed = ParseInitTrailer(stderr_all);
  ASSERT_TRUE(parsed.has_value());
  ASSERT_EQ(parsed->length, kRealTrailer.size());
  for (size_t chunk : kChunkSizes) {
    SCOPED_TRACE("chunk " + std::to_string(chunk));
    EXPECT_EQ(FilterAll(stderr_all, chunk), program);
  }
}

}  // namespace
}  // namespace coderunner::isolation
