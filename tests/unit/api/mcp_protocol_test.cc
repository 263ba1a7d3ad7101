#include "api/mcp/mcp_protocol.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace coderunner::api::mcp {
namespace {

using nlohmann::json;

TEST(McpProtocolTest, ReadsEachKindOfMessageAndRefusesTheRest) {
  struct Case {
    const char* body;
    bool ok;
    Message::Kind kind;
    const char* method;
  };
  const Case cases[] = {
      {R"({"jsonrpc":"2.0","id":1,"method":"ping"})", true, Message::Kind::kRequest, "ping"},
      {R"({"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}})", true,
       Message::Kind::kRequest, "tools/list"},
      {R"({"jsonrpc":"2.0","method":"notifications/initialized"})", true,
       Message::Kind::kNotification, "notifications/initialized"},
      {R"({"jsonrpc":"2.0","id":3,"result":{}})", true, Message::Kind::kResponse, ""},
      {R"({"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}})", true,
       Message::Kind::kResponse, ""},
      // A batch: one message per POST since 2025-06-18.
      {R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", false, Message::Kind::kRequest, ""},
      {R"({"id":1,"method":"ping"})", false, Message::Kind::kRequest, ""},
      {R"({"jsonrpc":"1.0","id":1,"method":"ping"})", false, Message::Kind::kRequest, ""},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", false, Message::Kind::kRequest, ""},
      {R"({"jsonrpc":"2.0","id":{},"method":"ping"})", false, Message::Kind::kRequest, ""},
      {R"({"jsonrpc":"2.0","id":1,"method":7})", false, Message::Kind::kRequest, ""},
      {R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})", false, Message::Kind::kRequest,
       ""},
      {R"({"jsonrpc":"2.0","id":1})", false, Message::Kind::kRequest, ""},
      {R"("ping")", false, Message::Kind::kRequest, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.body);
    auto m = ReadMessage(json::parse(c.body));
    ASSERT_EQ(m.ok(), c.ok) << m.status().message();
    if (!c.ok) {
      EXPECT_EQ(m.status().reason(), "invalid_request");
      continue;
    }
    EXPECT_EQ(m->kind, c.kind);
    EXPECT_EQ(m->method, c.method);
    EXPECT_TRUE(m->params.is_object());
  }
}

TEST(McpProtocolTest, NegotiatesTheRevisionsItSpeaksAndOffersItsDefaultElse) {
  const std::pair<const char*, const char*> cases[] = {
      {"2025-06-18", "2025-06-18"}, {"2025-11-25", "2025-11-25"}, {"2025-03-26", "2025-03-26"},
      {"2024-11-05", "2025-06-18"}, {"", "2025-06-18"},           {"2099-01-01", "2025-06-18"},
  };
  for (const auto& [asked, answered] : cases) EXPECT_EQ(NegotiateVersion(asked), answered) << asked;
}

TEST(McpProtocolTest, LogLevelsAreRankedLeastSevereFirst) {
  EXPECT_LT(LogLevelRank("debug"), LogLevelRank("info"));
  EXPECT_LT(LogLevelRank("info"), LogLevelRank("warning"));
  EXPECT_LT(LogLevelRank("warning"), LogLevelRank("emergency"));
  EXPECT_EQ(LogLevelRank("verbose"), -1);
}

TEST(McpProtocolTest, RequestKeysTellAStringIdFromANumberId) {
  EXPECT_NE(RequestKey(json(7)), RequestKey(json("7")));
  EXPECT_EQ(RequestKey(json(7)), RequestKey(json::parse("7")));
}

}  // namespace
}  // namespace coderunner::api::mcp
