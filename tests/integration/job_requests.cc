// See job_requests.h.
#include "job_requests.h"

#include <gtest/gtest.h>

#include <thread>

namespace coderunner::testing {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

json Python(const std::string& code) {
  return json{{"language", "python"}, {"code", code}, {"cache", false}};
}

// POST /v1/jobs; the id, or "" (with a failure) unless 202.
std::string Submit(const ServerProcess& s, const std::string& code) {
  HttpAnswer a = s.Post("/v1/jobs", Python(code).dump());
  EXPECT_EQ(a.status, 202) << a.body;
  return a.status == 202 && a.json.is_object() ? a.json.value("id", "") : "";
}

// Waits through /wait until the job is terminal; the last record seen (a
// failure if it never was within `budget`, which only bounds a hang).
json WaitTerminal(const ServerProcess& s, const std::string& id, seconds budget) {
  json last;
  for (auto deadline = Clock::now() + budget; Clock::now() < deadline;) {
    auto asked = Clock::now();
    HttpAnswer a = s.Get("/v1/jobs/" + id + "/wait?timeout_s=10");
    if (a.status == 200) return a.json;
    if (a.status != 202) {
      ADD_FAILURE() << "wait " << id << ": " << a.status << " " << a.body;
      return a.json;
    }
    last = a.json;
    if (Clock::now() - asked < milliseconds(500)) std::this_thread::sleep_for(milliseconds(200));
  }
  ADD_FAILURE() << "job " << id << " not terminal: " << last.dump();
  return last;
}

}  // namespace coderunner::testing
