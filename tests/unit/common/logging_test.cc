#include "coderunner/common/logging.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace coderunner {
namespace {

TEST(LoggingTest, RequestIdForKeepsUsableIdsAndReplacesOthers) {
  struct Case {
    const char* name;
    std::string offered;
    bool kept;
  };
  const Case cases[] = {
      {"uuid", "3f1c2a9e-8d4b-4a8e-9c1d-2b7e5f6a0c11", true},
      {"dotted and colons", "trace.42:span_7", true},
      {"128 characters", std::string(128, 'a'), true},
      {"empty", "", false},
      {"129 characters", std::string(129, 'a'), false},
      {"space", "a b", false},
      {"newline (log injection)", "abc\n{\"level\":\"error\"}", false},
      {"quote", "a\"b", false},
      {"non-ASCII", "caf\xc3\xa9", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string id = RequestIdFor(c.offered);
    if (c.kept) {
      EXPECT_EQ(id, c.offered);
    } else {
      EXPECT_EQ(id.rfind("req-", 0), 0u) << id;
      EXPECT_EQ(id.size(), 28u) << id;
    }
  }
}

TEST(LoggingTest, RejectsUnknownFormatOrLevel) {
  EXPECT_EQ(ConfigureLogging("info", "xml").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ConfigureLogging("loud", "text").code(), StatusCode::kInvalidArgument);
}

// Captures the default logger's lines through an ostream sink.
class LoggingCaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = spdlog::default_logger();
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  }
  void TearDown() override {
    ClearRequestId();
    spdlog::set_default_logger(saved_);
    ASSERT_TRUE(ConfigureLogging("info", "text").ok());
  }
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> saved_;
};

TEST_F(LoggingCaptureTest, JsonLinesCarryLevelMessageAndTheRequestId) {
  ASSERT_TRUE(ConfigureLogging("info", "json").ok());
  spdlog::info("outside \"any\" request");
  SetRequestId("req-1");
  spdlog::warn("inside\none");
  ClearRequestId();
  spdlog::debug("below the level");
  std::istringstream lines(out_.str());
  std::string line;
  std::vector<nlohmann::json> parsed;
  while (std::getline(lines, line)) parsed.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(parsed.size(), 2u) << out_.str();
  EXPECT_EQ(parsed[0]["level"], "info");
  EXPECT_EQ(parsed[0]["msg"], "outside \"any\" request");
  EXPECT_FALSE(parsed[0].contains("request_id"));
  EXPECT_EQ(parsed[1]["level"], "warning");
  EXPECT_EQ(parsed[1]["msg"], "inside\none");
  EXPECT_EQ(parsed[1]["request_id"], "req-1");
  std::string ts = parsed[1]["ts"];
  EXPECT_EQ(ts.size(), 24u) << ts;  // 2026-11-23T16:30:00.123Z
  EXPECT_EQ(ts.back(), 'Z');
}

TEST_F(LoggingCaptureTest, TextLinesEndWithTheRequestIdWhileOneIsHandled) {
  ASSERT_TRUE(ConfigureLogging("info", "text").ok());
  spdlog::info("plain");
  SetRequestId("req-2");
  spdlog::info("tagged");
  std::string text = out_.str();
  EXPECT_NE(text.find("plain\n"), std::string::npos) << text;
  EXPECT_NE(text.find("tagged [req req-2]\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace coderunner
