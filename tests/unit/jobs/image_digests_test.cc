// ImageDigests over the fake engine transport: a digest is looked up off
// the request path, a stale one is given at once while it is refreshed,
// and an engine that stalls holds a submission for first_wait at most.
#include "jobs/image_digests.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "unit/engine/fake_transport.h"

namespace coderunner::jobs {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;

constexpr const char* kImage = "coderunner/python:3.11";
constexpr const char* kInspect = "/images/coderunner/python:3.11/json";

// An engine whose image inspect waits until the test lets it answer.
class StallingEngine : public testutil::FakeTransport {
 public:
  StatusOr<engine::HttpResponse> Do(const engine::HttpRequest& request) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !stalled_; });
    lock.unlock();
    return FakeTransport::Do(request);
  }
  void Stall(bool stalled) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stalled_ = stalled;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stalled_ = false;
};

void AnswerDigest(testutil::FakeTransport& engine, const std::string& digest) {
  engine.AnswerJson("GET", kInspect, 200,
                    nlohmann::json{{"Id", digest}, {"RepoDigests", nlohmann::json::array()}});
}

TEST(ImageDigestsTest, AKnownDigestIsGivenAtOnceAndRefreshedOffThePath) {
  StallingEngine engine;
  engine::ImageClient images(engine, std::chrono::seconds(60));
  AnswerDigest(engine, "sha256:one");
  ImageDigests digests(&images, milliseconds(1), hours(1));
  EXPECT_EQ(digests.Get(kImage), "sha256:one");
  EXPECT_EQ(digests.lookups(), 1);
  // Stale, and the engine stalls: the last digest comes back without
  // waiting, and one refresh is under way, however many ask.
  engine.Stall(true);
  std::this_thread::sleep_for(milliseconds(5));  // Past the 1 ms ttl.
  for (int i = 0; i < 50; ++i) EXPECT_EQ(digests.Get(kImage), "sha256:one");
  AnswerDigest(engine, "sha256:two");
  engine.Stall(false);
  std::string got = digests.Get(kImage);
  for (int i = 0; i < 2000 && got != "sha256:two"; ++i) {
    std::this_thread::sleep_for(milliseconds(1));
    got = digests.Get(kImage);
  }
  EXPECT_EQ(got, "sha256:two");
  EXPECT_GE(digests.lookups(), 2);
  EXPECT_EQ(digests.Get("sha256:pinned"), "sha256:pinned");
}

// Issue 30: every submission asked the engine when the digest was stale,
// and a stopped engine held each for the whole stall.
TEST(ImageDigestsTest, AnImageNeverLookedUpWaitsOnlyTheFirstWait) {
  StallingEngine engine;
  engine::ImageClient images(engine, std::chrono::seconds(60));
  AnswerDigest(engine, "sha256:one");
  engine.Stall(true);
  ImageDigests digests(&images, hours(1), milliseconds(20));
  for (int i = 0; i < 20; ++i) EXPECT_EQ(digests.Get(kImage), "");
  EXPECT_EQ(digests.lookups(), 1) << "one lookup at a time, whoever asks";
  engine.Stall(false);
  std::string got = digests.Get(kImage);
  for (int i = 0; i < 2000 && got.empty(); ++i) {
    std::this_thread::sleep_for(milliseconds(1));
    got = digests.Get(kImage);
  }
  EXPECT_EQ(got, "sha256:one");
}

}  // namespace
}  // namespace coderunner::jobs
