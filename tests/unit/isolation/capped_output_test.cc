#include "coderunner/isolation/capped_output.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::isolation {
namespace {

std::string Pattern(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + i % 26));
  return s;
}

TEST(CappedOutputTest, KeepsEverythingUnderTheCap) {
  CappedOutput out(100);
  out.Append("hello ");
  out.Append("world");
  EXPECT_EQ(out.kept(), "hello world");
  EXPECT_EQ(out.tail(), "hello world");
  EXPECT_EQ(out.total_bytes(), 11u);
  EXPECT_FALSE(out.truncated());
}

TEST(CappedOutputTest, CapIsHonouredWhateverTheChunking) {
  const std::string data = Pattern(5000);
  for (size_t chunk : {size_t{1}, size_t{7}, size_t{100}, size_t{511}, size_t{512}, size_t{5000}}) {
    for (size_t cap :
         {size_t{0}, size_t{1}, size_t{100}, size_t{4999}, size_t{5000}, size_t{9000}}) {
      SCOPED_TRACE("chunk " + std::to_string(chunk) + " cap " + std::to_string(cap));
      CappedOutput out(cap);
      for (size_t i = 0; i < data.size(); i += chunk) out.Append(data.substr(i, chunk));
      EXPECT_EQ(out.kept(), data.substr(0, cap));
      EXPECT_EQ(out.total_bytes(), data.size());
      EXPECT_EQ(out.truncated(), cap < data.size());
      EXPECT_EQ(out.tail(), data.substr(data.size() - CappedOutput::kTailBytes));
    }
  }
}

TEST(CappedOutputTest, TotalCountsBytesBeyondTheCap) {
  CappedOutput out(4);
  for (int i = 0; i < 1000; ++i) out.Append("0123456789");
  EXPECT_EQ(out.kept(), "0123");
  EXPECT_EQ(out.total_bytes(), 10000u);
  EXPECT_TRUE(out.truncated());
  EXPECT_EQ(out.tail().size(), CappedOutput::kTailBytes);
}

TEST(CappedOutputTest, DropSuffixRemovesTrailerFromKeptTailAndTotal) {
  CappedOutput out(1000);
  out.Append("program output\n");
  out.Append("TRAILER\n");
  out.DropSuffix(8);
  EXPECT_EQ(out.kept(), "program output\n");
  EXPECT_EQ(out.tail(), "program output\n");
  EXPECT_EQ(out.total_bytes(), 15u);
  EXPECT_FALSE(out.truncated());
}

TEST(CappedOutputTest, DropSuffixAfterTruncationKeepsTheCappedPrefix) {
  CappedOutput out(10);
  out.Append(Pattern(100));
  out.Append("TRAILER\n");
  out.DropSuffix(8);
  EXPECT_EQ(out.kept(), Pattern(10));
  EXPECT_EQ(out.total_bytes(), 100u);
  EXPECT_TRUE(out.truncated());
  EXPECT_EQ(out.tail(), Pattern(100));
}

TEST(CappedOutputTest, DropSuffixOfTrailerThatAloneOverflowedTheCapIsNotTruncated) {
  // The program wrote 5 bytes; only the trailer pushed the stream past the cap.
  CappedOutput out(8);
  out.Append("12345");
  out.Append("TRAILER\n");
  EXPECT_TRUE(out.truncated());
  out.DropSuffix(8);
  EXPECT_EQ(out.kept(), "12345");
  EXPECT_EQ(out.total_bytes(), 5u);
  EXPECT_FALSE(out.truncated());
}

TEST(CappedOutputTest, DropSuffixNeverGoesBelowZero) {
  CappedOutput out(10);
  out.Append("abc");
  out.DropSuffix(100);
  EXPECT_EQ(out.kept(), "");
  EXPECT_EQ(out.tail(), "");
  EXPECT_EQ(out.total_bytes(), 0u);
}

}  // namespace
}  // namespace coderunner::isolation
