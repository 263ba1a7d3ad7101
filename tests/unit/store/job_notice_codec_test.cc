// The text payloads of JobNotices on the PostgreSQL channel: what is sent,
// and that anything else read from the channel is refused, never trusted.
#include "store/job_notice_codec.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "coderunner/store/postgres/pg_job_notices.h"

namespace coderunner::store {
namespace {

TEST(JobNoticeCodecTest, EncodesEachKindAndDecodesItBack) {
  struct Case {
    JobNotice::Kind kind;
    std::string id;
    std::string payload;
  };
  const std::vector<Case> cases = {
      {JobNotice::Kind::kQueued, "", "q:"},
      {JobNotice::Kind::kQueued, "job-1", "q:job-1"},
      {JobNotice::Kind::kChanged, "job-1", "c:job-1"},
      {JobNotice::Kind::kCancel, "job-1", "x:job-1"},
      {JobNotice::Kind::kChanged, "t:a:b", "c:t:a:b"},
      {JobNotice::Kind::kCancel, std::string(128, '~'), "x:" + std::string(128, '~')},
  };
  for (const Case& c : cases) {
    JobNotice notice;
    notice.kind = c.kind;
    notice.job_id = c.id;
    ASSERT_TRUE(CheckJobNotice(notice).ok()) << c.payload;
    EXPECT_EQ(EncodeJobNotice(notice), c.payload);
    std::optional<JobNotice> back = DecodeJobNotice(c.payload);
    ASSERT_TRUE(back.has_value()) << c.payload;
    EXPECT_EQ(back->kind, c.kind) << c.payload;
    EXPECT_EQ(back->job_id, c.id) << c.payload;
  }
}

TEST(JobNoticeCodecTest, RefusesJunkPayloads) {
  const std::vector<std::string> junk = {
      "",
      "q",
      "c:",
      "x:",
      ":c",
      "z:1",
      "C:1",
      "qc:1",
      "c;1",
      "c:a b",
      "c:a\tb",
      std::string("c:a\0b", 5),
      "c:\x7f",
      "c:\x01",
      "c:caf\xc3\xa9",
      "c:" + std::string(129, 'a'),
      "q:" + std::string(500, 'a'),
  };
  for (const std::string& payload : junk) {
    EXPECT_FALSE(DecodeJobNotice(payload).has_value()) << payload;
  }
}

TEST(JobNoticeCodecTest, CheckNamesTheReason) {
  struct Case {
    JobNotice::Kind kind;
    std::string id;
  };
  const std::vector<Case> bad = {
      {JobNotice::Kind::kChanged, ""},
      {JobNotice::Kind::kCancel, ""},
      {JobNotice::Kind::kQueued, std::string(129, 'a')},
      {JobNotice::Kind::kChanged, "a b"},
      {JobNotice::Kind::kChanged, "\xff"},
  };
  for (const Case& c : bad) {
    JobNotice notice;
    notice.kind = c.kind;
    notice.job_id = c.id;
    Status status = CheckJobNotice(notice);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.id;
    EXPECT_EQ(status.reason(), kReasonInvalidNotice) << c.id;
  }
}

JobNotice Output(bool is_stderr, int64_t offset, std::string data, std::string id = "job-1") {
  JobNotice n{JobNotice::Kind::kOutput, std::move(id)};
  n.is_stderr = is_stderr;
  n.offset = offset;
  n.data = std::move(data);
  return n;
}

TEST(JobNoticeCodecTest, EncodesWatchAndOutputAndDecodesThemBack) {
  struct Case {
    JobNotice notice;
    std::string payload;  // Empty: not checked, only the round trip.
  };
  std::string binary("\0\x01\xff:o:\n", 7);
  const std::vector<Case> cases = {
      {{JobNotice::Kind::kWatch, "job-1"}, "w:job-1"},
      {Output(false, 0, "hi"), "o:o:0:aGk=:job-1"},
      {Output(true, 12345, "hi"), "o:e:12345:aGk=:job-1"},
      {Output(false, 7, "hi", "t:a:b"), "o:o:7:aGk=:t:a:b"},
      {Output(true, kMaxNoticeOutputOffset, binary), ""},
      {Output(false, 0, std::string(kMaxNoticeOutputBytes, '\xfe'), std::string(128, '~')), ""},
  };
  for (const Case& c : cases) {
    ASSERT_TRUE(CheckJobNotice(c.notice).ok()) << c.payload;
    std::string payload = EncodeJobNotice(c.notice);
    if (!c.payload.empty()) {
      EXPECT_EQ(payload, c.payload);
    }
    EXPECT_LT(payload.size(), 8000u) << "under PostgreSQL's NOTIFY limit";
    std::optional<JobNotice> back = DecodeJobNotice(payload);
    ASSERT_TRUE(back.has_value()) << payload.substr(0, 40);
    EXPECT_EQ(back->kind, c.notice.kind);
    EXPECT_EQ(back->job_id, c.notice.job_id);
    if (c.notice.kind != JobNotice::Kind::kOutput) continue;
    EXPECT_EQ(back->is_stderr, c.notice.is_stderr);
    EXPECT_EQ(back->offset, c.notice.offset);
    EXPECT_EQ(back->data, c.notice.data);
  }
}

TEST(JobNoticeCodecTest, RefusesMalformedOutputPayloads) {
  const std::vector<std::string> junk = {
      "w:",
      "o:",
      "o:o:0:aGk=:",                                 // No job id.
      "o:o:0:aGk=",                                  // No field after data.
      "o:o:0::job-1",                                // No data.
      "o:x:0:aGk=:job-1",                            // Unknown stream.
      "o:oo:0:aGk=:job-1",                           // Stream of two bytes.
      "o:o::aGk=:job-1",                             // No offset.
      "o:o:01:aGk=:job-1",                           // Leading zero.
      "o:o:-1:aGk=:job-1",                           // Negative.
      "o:o:-0:aGk=:job-1",                           // Not canonical (fuzzer).
      "o:o:+1:aGk=:job-1",                           // Sign.
      "o:o:1x:aGk=:job-1",                           // Not a number.
      "o:o:1000000000000000000:aGk=:job-1",          // 19 digits.
      "o:o:0:aGk:job-1",                             // Unpadded.
      "o:o:0:aGl=:job-1",                            // Not canonical.
      "o:o:0:a Gk=:job-1",                           // Space in base64.
      "o:o:0:aGk=:job 1",                            // Space in id.
      "o:o:0:" + std::string(6672, 'A') + ":job-1",  // 5004 bytes decoded.
  };
  for (const std::string& payload : junk) {
    EXPECT_FALSE(DecodeJobNotice(payload).has_value()) << payload.substr(0, 60);
  }
}

TEST(JobNoticeCodecTest, CheckRefusesOutputOutOfBounds) {
  const std::vector<JobNotice> bad = {
      {JobNotice::Kind::kWatch, ""},
      Output(false, 0, ""),
      Output(false, 0, std::string(kMaxNoticeOutputBytes + 1, 'a')),
      Output(false, -1, "a"),
      Output(false, kMaxNoticeOutputOffset + 1, "a"),
      Output(false, 0, "a", ""),
  };
  for (const JobNotice& n : bad) {
    Status status = CheckJobNotice(n);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << n.offset << " " << n.data.size();
    EXPECT_EQ(status.reason(), kReasonInvalidNotice);
  }
}

}  // namespace
}  // namespace coderunner::store
