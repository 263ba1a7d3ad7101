// Floods of tiny writes against the live event stream
// (GET /v1/jobs/{id}/events) with five subscribers attached: the service's
// peak memory stays within 20 MiB of idle, and every subscriber receives
// exactly the job's bytes. The hostile programs are in tests/hostile/.
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr int kSubscribers = 5;
constexpr long kRssBudget = 20L << 20;
constexpr int64_t kMiB = 1 << 20;

// One job at a time, so a blocker job keeps the flood queued until every
// subscriber is attached; no result cache at all.
class EventFloodTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override { return "jobs: {max_concurrent: 1, cache_ttl_s: 0}\n"; }
};

// What one /events subscriber received.
struct Received {
  int http_status = 0;
  int64_t bytes[2] = {0, 0};  // Decoded stdout, stderr bytes.
  int64_t foreign = 0;        // Bytes other than the job's one byte value.
  int64_t output_events = 0;
  json result;  // The `result` event's record.
};

// Counts until `n` subscribers have said they are attached.
class Attached {
 public:
  void One() {
    std::lock_guard<std::mutex> lock(mu_);
    ++count_;
    cv_.notify_all();
  }
  bool WaitFor(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(120), [&] { return count_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
};

// Reads the job's /events until `result`, counting output bytes; calls
// attached.One() once the first event (`state`) arrived, i.e. once the
// stream holds the job's channel.
Received Subscribe(const ServerProcess& s, const std::string& id, char byte, Attached& attached) {
  Received got;
  std::string name;
  std::string data;
  bool announced = false;
  got.http_status = s.StreamLines(
      "/v1/jobs/" + id + "/events",
      [&](const std::string& line, std::chrono::steady_clock::time_point) {
        if (line.rfind("event: ", 0) == 0) {
          name = line.substr(7);
        } else if (line.rfind("data: ", 0) == 0) {
          data += line.substr(6);
        } else if (line.empty() && !name.empty()) {
          json j = json::parse(data, nullptr, false);
          if (name == "stdout" || name == "stderr") {
            std::string chunk = j.value("data", "");
            got.bytes[name == "stderr" ? 1 : 0] += static_cast<int64_t>(chunk.size());
            for (char c : chunk) got.foreign += c != byte;
            ++got.output_events;
          } else if (name == "result") {
            got.result = std::move(j);
            return false;
          }
          if (!announced) attached.One();
          announced = true;
          name.clear();
          data.clear();
        }
        return true;
      },
      std::chrono::seconds(240));
  if (!announced) attached.One();  // Never attached: do not hold the test up.
  return got;
}

// Runs tests/hostile/<file> (python) as an async job with kSubscribers
// subscribers attached from before it starts, and checks memory, what each
// subscriber got and the result: `want[0]` / `want[1]` bytes of `byte` on
// stdout / stderr.
void FloodWithSubscribers(const ServerProcess& s, const std::string& file, char byte,
                          const int64_t want[2]) {
  long idle = s.RssBytes();
  // Holds the only worker until every subscriber is attached to the flood
  // (cancelled then; its time limit only bounds a broken test).
  HttpAnswer blocker = s.Post("/v1/jobs", json{{"language", "python"},
                                               {"code", "import time\ntime.sleep(120)"},
                                               {"limits", {{"timeout_ms", 120000}}}}
                                              .dump());
  ASSERT_EQ(blocker.status, 202) << blocker.body;
  json body = {{"language", "python"},
               {"code", HostileProgram(file)},
               {"cache", false},
               {"limits", {{"timeout_ms", 60000}}}};
  HttpAnswer accepted = s.Post("/v1/jobs", body.dump());
  ASSERT_EQ(accepted.status, 202) << accepted.body;
  EXPECT_FALSE(accepted.json.value("cached", false)) << accepted.body;
  const std::string id = accepted.json["id"];

  Attached attached;
  std::vector<Received> got(kSubscribers);
  std::vector<std::thread> readers;
  for (int i = 0; i < kSubscribers; ++i) {
    readers.emplace_back([&, i] { got[i] = Subscribe(s, id, byte, attached); });
  }
  // No ASSERT until the readers are joined.
  EXPECT_TRUE(attached.WaitFor(kSubscribers));
  EXPECT_TRUE(s.ResetPeakRss());
  HttpAnswer cancelled = s.Delete("/v1/jobs/" + blocker.json["id"].get<std::string>());
  EXPECT_LT(cancelled.status, 300) << cancelled.body;
  for (auto& t : readers) t.join();
  long peak = s.PeakRssBytes();
  // The blocker was still running when every subscriber had attached.
  EXPECT_EQ(s.Get("/v1/jobs/" + blocker.json["id"].get<std::string>()).json["status"], "cancelled");
  std::cout << "[  FIGURE  ] " << file << ": idle RSS " << idle << " B, peak " << peak
            << " B, growth " << peak - idle << " B" << std::endl;
  if (RssIsMeaningful()) {
    EXPECT_LT(peak - idle, kRssBudget) << "RSS peaked at " << peak << " from " << idle;
  }

  HttpAnswer job = s.Get("/v1/jobs/" + id);
  ASSERT_EQ(job.status, 200) << job.body.substr(0, 500);
  const json& r = job.json["result"];
  EXPECT_EQ(job.json["status"], "succeeded") << r.value("error", json()).dump();
  EXPECT_EQ(job.json["cached"], false);
  EXPECT_EQ(r["cached"], false);
  const char* streams[2] = {"stdout", "stderr"};
  for (int k = 0; k < 2; ++k) {
    SCOPED_TRACE(streams[k]);
    // Exactly the job's bytes: under or at the default cap of 1 MiB per stream.
    EXPECT_EQ(r[streams[k]], std::string(static_cast<size_t>(want[k]), byte));
    EXPECT_EQ(r[std::string(streams[k]) + "_truncated"], false);
  }
  for (int i = 0; i < kSubscribers; ++i) {
    SCOPED_TRACE("subscriber " + std::to_string(i));
    EXPECT_EQ(got[i].http_status, 200);
    EXPECT_EQ(got[i].bytes[0], want[0]);
    EXPECT_EQ(got[i].bytes[1], want[1]);
    EXPECT_EQ(got[i].foreign, 0);
    EXPECT_EQ(got[i].result.value("status", ""), "succeeded");
    std::cout << "[  FIGURE  ] " << file << ": subscriber " << i << " got " << got[i].output_events
              << " output events" << std::endl;
  }
}

TEST_F(EventFloodTest, RecordSeparatorBytesOneWriteEachOnBothStreams) {
  ExpectNormalJobStillWorks();  // Warms the service up before idle is read.
  const int64_t want[2] = {kMiB / 2, kMiB / 2};
  FloodWithSubscribers(*server_, "record_separator_flood.py", '\x1e', want);
  ExpectNormalJobStillWorks();
}

TEST_F(EventFloodTest, OneByteWritesOnStdout) {
  ExpectNormalJobStillWorks();
  const int64_t want[2] = {kMiB, 0};
  FloodWithSubscribers(*server_, "one_byte_writes.py", 'x', want);
  ExpectNormalJobStillWorks();
}

}  // namespace
}  // namespace coderunner::testing
