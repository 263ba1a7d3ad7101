// AttachedContainer: an attach stream whose bytes come the moment it opens
// (a container that writes at once, or the fake engine replaying a
// finished one) loses none of them when the sink is given at construction.
// Before the sink was a constructor argument, ContainerRunner set it just
// after the reader thread started, and under load the first chunks (with
// coderunner-init's trailer) were dropped as unclaimed: a job's OOM or CPU
// limit then read as success.
#include "coderunner/isolation/attached_container.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>

#include "unit/isolation/scripted_engine.h"

namespace coderunner::isolation {
namespace {

constexpr const char* kAttach = "/containers/c1/attach?stream=1&stdout=1&stderr=1";

struct Case {
  const char* name;
  bool with_sink;
  bool all_unclaimed;  // Every byte found no sink (else none).
};

class AttachedContainerTest : public ::testing::TestWithParam<Case> {};

TEST_P(AttachedContainerTest, BytesFromTheFirstOnReachTheConstructorsSink) {
  const std::string body = testutil::MuxFrame(1, "out\n") +
                           testutil::MuxFrame(2, testutil::InitTrailerLine({{"exit_code", 137}}));
  testutil::FakeTransport engine;
  engine.Answer("POST", kAttach, 200, body);
  engine::ContainerClient containers(engine, std::chrono::seconds(5));
  std::mutex mu;
  std::string received;
  AttachedContainer::Sink sink = nullptr;
  if (GetParam().with_sink) {
    sink = [&](std::string_view chunk) {
      std::lock_guard<std::mutex> lock(mu);
      received.append(chunk);
      return true;
    };
  }
  AttachedContainer attach(containers, "c1", std::chrono::milliseconds(0), sink);
  ASSERT_EQ(attach.WaitDone(AttachedContainer::Clock::now() + testutil::kHangGuard),
            AttachedContainer::Wake::kDone);
  EXPECT_EQ(attach.unclaimed_bytes(), GetParam().all_unclaimed ? body.size() : 0u);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(received, GetParam().with_sink ? body : "");
}

INSTANTIATE_TEST_SUITE_P(Sinks, AttachedContainerTest,
                         ::testing::Values(Case{"GivenAtConstruction", true, false},
                                           Case{"None", false, true}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace coderunner::isolation
