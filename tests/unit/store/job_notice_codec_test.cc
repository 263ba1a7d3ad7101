// The text payloads of JobNotices on the PostgreSQL channel: what is sent,
// and that anything else read from the channel is refused, never trusted.
#include "store/job_notice_codec.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "coderunner/store/pg_job_notices.h"

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

}  // namespace
}  // namespace coderunner::store
