#include "cli/line_splitter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::cli {
namespace {

constexpr char kOverlong[] = "<overlong>";

struct SplitCase {
  const char* name;
  size_t max_line_bytes;
  std::string stream;
  std::vector<std::string> want;  // Lines, with kOverlong for each line skipped.
};

class LineSplitterTest : public ::testing::TestWithParam<SplitCase> {};

TEST_P(LineSplitterTest, SameLinesWhateverTheChunking) {
  const SplitCase& c = GetParam();
  for (size_t chunk : {size_t{1}, size_t{2}, size_t{5}, c.stream.size() + 1}) {
    std::vector<std::string> got;
    LineSplitter splitter(
        c.max_line_bytes, [&got](std::string_view line) { got.emplace_back(line); },
        [&got] { got.emplace_back(kOverlong); });
    for (size_t i = 0; i < c.stream.size(); i += chunk) {
      splitter.Feed(std::string_view(c.stream).substr(i, chunk));
    }
    splitter.Finish();
    EXPECT_EQ(got, c.want) << "chunk size " << chunk;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LineSplitterTest,
    ::testing::Values(SplitCase{"lines", 10, "ab\ncd\n", {"ab", "cd"}},
                      SplitCase{"crlf_dropped", 10, "ab\r\ncd\r\n", {"ab", "cd"}},
                      SplitCase{"empty_lines_kept", 10, "\n\nx\n", {"", "", "x"}},
                      SplitCase{"unterminated_last_line", 10, "ab\ncd", {"ab", "cd"}},
                      SplitCase{"exactly_the_bound", 4, "abcd\nabcd\r\n", {"abcd", "abcd"}},
                      SplitCase{"one_over", 4, "abcde\nok\n", {kOverlong, "ok"}},
                      SplitCase{
                          "cr_does_not_save_a_long_line", 4, "abcde\r\nok\n", {kOverlong, "ok"}},
                      SplitCase{"far_over_then_more",
                                3,
                                std::string(100, 'x') + "\nab\n" + std::string(9, 'y') + "\n",
                                {kOverlong, "ab", kOverlong}},
                      SplitCase{"overlong_unterminated", 3, "ab\nxxxxxxx", {"ab", kOverlong}},
                      SplitCase{"nothing", 3, "", {}}),
    [](const ::testing::TestParamInfo<SplitCase>& info) { return info.param.name; });

TEST(LineSplitterLongLineTest, SkippedAsItComes) {
  // 64 MiB through a 1 KiB bound, in 1 MiB chunks: reported once, and the
  // line after it arrives whole.
  int overlong = 0;
  std::vector<std::string> lines;
  LineSplitter splitter(
      1024, [&lines](std::string_view line) { lines.emplace_back(line); },
      [&overlong] { ++overlong; });
  std::string chunk(1 << 20, 'x');
  for (int i = 0; i < 64; ++i) splitter.Feed(chunk);
  splitter.Feed("\n{}\n");
  EXPECT_EQ(overlong, 1);
  EXPECT_EQ(lines, std::vector<std::string>{"{}"});
}

}  // namespace
}  // namespace coderunner::cli
