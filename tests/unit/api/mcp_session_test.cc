#include "api/mcp/mcp_session.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

namespace coderunner::api::mcp {
namespace {

using std::chrono::seconds;

class McpSessionsTest : public ::testing::Test {
 protected:
  McpSessions Sessions(int max_per_tenant) {
    return McpSessions(max_per_tenant, seconds(60), [this] { return now_; });
  }
  std::chrono::steady_clock::time_point now_ = std::chrono::steady_clock::time_point(seconds(1000));
};

TEST_F(McpSessionsTest, AtItsBoundATenantsLeastRecentQuietSessionMakesRoom) {
  McpSessions sessions = Sessions(2);
  auto first = sessions.Open("acme", "2025-06-18");
  now_ += seconds(1);
  auto second = sessions.Open("acme", "2025-06-18");
  ASSERT_TRUE(first.ok() && second.ok());
  now_ += seconds(1);
  ASSERT_TRUE(sessions.Find((*first)->id(), "acme").ok());  // Now the second is older.
  auto third = sessions.Open("acme", "2025-06-18");
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE((*second)->closed());
  EXPECT_FALSE((*first)->closed());
  EXPECT_FALSE(sessions.Find((*second)->id(), "acme").ok());
  // Another tenant's sessions are neither counted nor ended.
  ASSERT_TRUE(sessions.Open("globex", "2025-06-18").ok());
  EXPECT_EQ(sessions.size(), 3u);
}

TEST_F(McpSessionsTest, SessionsWithACallInFlightAreNeverEndedToMakeRoom) {
  McpSessions sessions = Sessions(2);
  auto calling = sessions.Open("acme", "2025-06-18");
  now_ += seconds(1);
  auto streaming = sessions.Open("acme", "2025-06-18");
  ASSERT_TRUE(calling.ok() && streaming.ok());
  auto token = (*calling)->Track(nlohmann::json(1));
  auto other_token = (*streaming)->Track(nlohmann::json(1));
  auto refused = sessions.Open("acme", "2025-06-18");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().reason(), kReasonSessionsExhausted);
  EXPECT_FALSE(token->cancelled());
  // A GET stream alone does not keep a session: it only waits.
  (*streaming)->Untrack(nlohmann::json(1));
  ASSERT_TRUE((*streaming)->OpenStream());
  EXPECT_TRUE(sessions.Open("acme", "2025-06-18").ok());
  EXPECT_TRUE((*streaming)->closed());
  EXPECT_FALSE((*calling)->closed());
  EXPECT_FALSE(token->cancelled());
}

TEST_F(McpSessionsTest, AnotherTenantsSessionIsNotFoundAndCannotBeClosed) {
  McpSessions sessions = Sessions(4);
  auto mine = sessions.Open("acme", "2025-06-18");
  ASSERT_TRUE(mine.ok());
  const std::string id = (*mine)->id();
  auto theirs = sessions.Find(id, "globex");
  ASSERT_FALSE(theirs.ok());
  EXPECT_EQ(theirs.status().reason(), kReasonSessionNotFound);
  EXPECT_FALSE(sessions.Close(id, "globex").ok());
  EXPECT_FALSE((*mine)->closed());
  EXPECT_TRUE(sessions.Find(id, "acme").ok());
  EXPECT_TRUE(sessions.Close(id, "acme").ok());
  EXPECT_TRUE((*mine)->closed());
  EXPECT_FALSE(sessions.Find(id, "acme").ok());
}

TEST_F(McpSessionsTest, AnIdleSessionEndsAndFreesItsPlace) {
  McpSessions sessions = Sessions(4);
  auto first = sessions.Open("acme", "2025-06-18");
  ASSERT_TRUE(first.ok());
  now_ += seconds(59);
  ASSERT_TRUE(sessions.Find((*first)->id(), "acme").ok());  // Used: idle again from here.
  now_ += seconds(59);
  ASSERT_TRUE(sessions.Find((*first)->id(), "acme").ok());
  now_ += seconds(60);
  EXPECT_TRUE(sessions.Open("globex", "2025-06-18").ok());  // Any call ends the idle ones.
  EXPECT_TRUE((*first)->closed());
  EXPECT_FALSE(sessions.Find((*first)->id(), "acme").ok());
  EXPECT_EQ(sessions.size(), 1u);
}

TEST_F(McpSessionsTest, CancellingARequestStopsItOnceAndClosingStopsEveryOne) {
  McpSession session("mcp-1", "acme", "2025-06-18");
  std::atomic<int> stopped{0};
  auto a = session.Track(nlohmann::json(1));
  auto b = session.Track(nlohmann::json("1"));
  a->OnCancel([&] { ++stopped; });
  b->OnCancel([&] { stopped += 10; });
  session.Cancel(nlohmann::json(1));
  session.Cancel(nlohmann::json(1));
  EXPECT_EQ(stopped, 1);
  EXPECT_FALSE(b->cancelled());
  session.Close();
  EXPECT_EQ(stopped, 11);
  // A call that starts after the session closed is cancelled at once.
  auto late = session.Track(nlohmann::json(2));
  EXPECT_TRUE(late->cancelled());
  bool ran = false;
  late->OnCancel([&] { ran = true; });
  EXPECT_TRUE(ran);
}

TEST_F(McpSessionsTest, ASessionHoldsAtMostTwoGetStreams) {
  McpSession session("mcp-1", "acme", "2025-06-18");
  EXPECT_TRUE(session.OpenStream());
  EXPECT_TRUE(session.OpenStream());
  EXPECT_FALSE(session.OpenStream());
  session.CloseStream();
  EXPECT_TRUE(session.OpenStream());
}

}  // namespace
}  // namespace coderunner::api::mcp
