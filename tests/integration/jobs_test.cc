// Durable async jobs against a live server on a real engine: submit, wait,
// list, batch, cancel, a full queue, kill -9 mid-flight, an engine that goes
// away, Server-Sent Events, the result cache, replay, webhooks, redaction,
// metrics and bad input.
#include <httplib.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/ids.h"
#include "coderunner/engine/containers.h"
#include "coderunner/engine/curl_transport.h"
#include "coderunner/isolation/container_policy.h"
#include "engine_fixture.h"
#include "unix_proxy.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// --- Helpers -----------------------------------------------------------------

int64_t MsSince(Clock::time_point t) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - t).count();
}

int64_t WallNowMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "2024-05-01T12:34:56.789Z" -> Unix ms; -1 if malformed.
int64_t ParseRfc3339Ms(const json& j) {
  if (!j.is_string()) return -1;
  std::string s = j;
  struct tm tm = {};
  int ms = 0;
  if (sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
             &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7) {
    return -1;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

bool IsTerminalName(const std::string& s) {
  return s == "succeeded" || s == "failed" || s == "timeout" || s == "oom" || s == "cancelled" ||
         s == "error";
}

std::string Str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::vector<std::string> TransitionNames(const json& record) {
  std::vector<std::string> out;
  if (!record.is_object() || !record["transitions"].is_array()) return out;
  for (const auto& t : record["transitions"]) out.push_back(Str(t, "status"));
  return out;
}

json Python(const std::string& code, const json& extra = json::object()) {
  json body = extra;
  body["language"] = "python";
  body["code"] = code;
  return body;
}

// Figures for the log: printed and recorded as test properties.
void Figure(const std::string& name, int64_t value) {
  std::cout << "[  FIGURE  ] " << name << " = " << value << std::endl;
  ::testing::Test::RecordProperty(name, std::to_string(value));
}

// POST /v1/jobs; the id, or "" (with a failure) unless 202.
std::string Submit(const ServerProcess& s, const json& body) {
  HttpAnswer a = s.Post("/v1/jobs", body.dump());
  EXPECT_EQ(a.status, 202) << a.body;
  if (a.status != 202 || !a.json.is_object()) return "";
  return Str(a.json, "id");
}

json GetJob(const ServerProcess& s, const std::string& id) {
  HttpAnswer a = s.Get("/v1/jobs/" + id);
  EXPECT_EQ(a.status, 200) << a.body;
  return a.json;
}

// Waits through /wait until the job is terminal or `budget` runs out; the
// last record seen.
json WaitTerminal(const ServerProcess& s, const std::string& id, seconds budget = seconds(60)) {
  auto deadline = Clock::now() + budget;
  json last;
  do {
    auto left = std::chrono::duration_cast<seconds>(deadline - Clock::now()).count();
    auto asked = Clock::now();
    HttpAnswer a = s.Get("/v1/jobs/" + id +
                         "/wait?timeout_s=" + std::to_string(std::clamp<int64_t>(left, 1, 10)));
    if (a.status == 200) return a.json;
    if (a.status != 202) {
      ADD_FAILURE() << "wait " << id << ": " << a.status << " " << a.body;
      return a.json;
    }
    last = a.json;
    // /wait may answer early (see WaitHonoursItsTimeoutWhileRecoveryIsPending);
    // do not spin on it.
    if (MsSince(asked) < 500) std::this_thread::sleep_for(milliseconds(200));
  } while (Clock::now() < deadline);
  ADD_FAILURE() << "job " << id << " not terminal after " << budget.count()
                << " s: " << last.dump();
  return last;
}

// Polls GET until the job has `status` (or is terminal); the record.
json PollUntilStatus(const ServerProcess& s, const std::string& id, const std::string& status,
                     seconds budget = seconds(30)) {
  auto deadline = Clock::now() + budget;
  json rec;
  while (Clock::now() < deadline) {
    rec = s.Get("/v1/jobs/" + id).json;
    std::string now = Str(rec, "status");
    if (now == status || IsTerminalName(now)) return rec;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return rec;
}

// Every job the list route returns for `query` (e.g. "status=running"),
// following cursors.
std::vector<json> ListAll(const ServerProcess& s, const std::string& query, int limit = 500) {
  std::vector<json> out;
  std::string cursor;
  for (int page = 0; page < 1000; ++page) {
    std::string path = "/v1/jobs?limit=" + std::to_string(limit);
    if (!query.empty()) path += "&" + query;
    if (!cursor.empty()) path += "&cursor=" + cursor;
    HttpAnswer a = s.Get(path);
    EXPECT_EQ(a.status, 200) << a.body;
    if (a.status != 200) break;
    for (const auto& j : a.json["jobs"]) out.push_back(j);
    if (a.json["next_cursor"].is_null()) break;
    cursor = a.json["next_cursor"];
  }
  return out;
}

// The one sample of `name` (a metric without labels) in /metrics; -1 if
// absent.
double MetricSample(const ServerProcess& s, const std::string& name) {
  std::istringstream in(s.Get("/metrics").body);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  }
  return -1;
}

// Gates that hold a job until the test opens them: the job's code starts
// with Prelude(), which creates /output/<marker>, and waits in
// wait_gate(i) until /output/.go-<i> exists. Open(i) creates that file on
// the host, in the job's /output directory (artifacts_dir/<job id> for a
// cold container, a warm one's slot directory while it runs), found by
// the marker. So the job's progress follows the test's events, not the
// clock.
class JobGates {
 public:
  explicit JobGates(const ServerProcess& s) : server_(s), marker_(".gates-" + NewId("t")) {}

  std::string Prelude() const {
    return "import os, time\n"
           "open('/output/" +
           marker_ +
           "', 'w').close()\n"
           "def wait_gate(i):\n"
           "    while not os.path.exists(f'/output/.go-{i}'):\n"
           "        time.sleep(0.01)\n";
  }

  // Lets the job's wait_gate(i) return. False if the job's /output (its
  // marker) did not appear.
  bool Open(int i) {
    if (dir_.empty()) {
      Eventually([&] {
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(server_.artifacts_dir(), ec)) {
          if (std::filesystem::exists(e.path() / marker_, ec)) dir_ = e.path().string();
        }
        return !dir_.empty();
      });
      if (dir_.empty()) return false;
    }
    std::ofstream go(dir_ + "/.go-" + std::to_string(i));
    return static_cast<bool>(go);
  }

 private:
  const ServerProcess& server_;
  const std::string marker_;
  std::string dir_;  // The job's /output on the host, once found.
};

// One Server-Sent Event as it arrived.
struct SseEvent {
  std::string name;
  json data;
  Clock::time_point at;
};

// Reads /v1/jobs/{id}/events until the `result` event (or `timeout`),
// handing each event to `on_event` (if any) as it arrives.
std::vector<SseEvent> ReadEvents(const ServerProcess& s, const std::string& id,
                                 seconds timeout = seconds(60), int* http_status = nullptr,
                                 const std::function<void(const SseEvent&)>& on_event = nullptr) {
  std::vector<SseEvent> events;
  SseEvent current;
  std::string data;
  int status = s.StreamLines(
      "/v1/jobs/" + id + "/events",
      [&](const std::string& line, Clock::time_point at) {
        if (line.empty()) {  // End of an event.
          if (!current.name.empty()) {
            current.data = json::parse(data, nullptr, false);
            current.at = at;
            events.push_back(current);
            if (on_event) on_event(current);
            if (current.name == "result") return false;
          }
          current = SseEvent();
          data.clear();
        } else if (line.rfind("event: ", 0) == 0) {
          current.name = line.substr(7);
        } else if (line.rfind("data: ", 0) == 0) {
          data += line.substr(6);
        }  // ":" comments (keep-alives) are ignored.
        return true;
      },
      timeout);
  if (http_status) *http_status = status;
  return events;
}

// True once job `id`'s /events stream carried its first output (within 30 s).
bool Printed(const ServerProcess& s, const std::string& id) {
  bool printed = false;
  s.StreamLines(
      "/v1/jobs/" + id + "/events",
      [&](const std::string& line, Clock::time_point) {
        printed = line.rfind("event: stdout", 0) == 0;
        return !printed;
      },
      seconds(30));
  return printed;
}

// --- Fixtures ----------------------------------------------------------------

using JobsTest = EngineTest;  // Default jobs settings (max_concurrent = cores).

class JobsCrashTest : public EngineTest {
  std::string ExtraConfig() const override {
    return "jobs: {max_concurrent: 2, max_queued: 100}\n";
  }
};

class JobsSerialTest : public EngineTest {
  std::string ExtraConfig() const override { return "jobs: {max_concurrent: 1}\n"; }
};

class JobsFullQueueTest : public EngineTest {
  std::string ExtraConfig() const override { return "jobs: {max_concurrent: 1, max_queued: 5}\n"; }
};

class JobsWebhookTest : public EngineTest {
  std::string ExtraConfig() const override { return "jobs: {webhook_allow_private: true}\n"; }
};

// A second server whose engine socket is a proxy the test can pull.
class JobsEngineOutageTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    char tmpl[] = "/tmp/coderunner-proxy-XXXXXX";
    proxy_dir_ = mkdtemp(tmpl);
    proxy_ = std::make_unique<UnixProxy>(proxy_dir_ + "/engine.sock", EngineSocketUnderTest());
  }

  void TearDown() override {
    EngineTest::TearDown();
    if (outage_server_ && outage_server_->started()) {
      // The engine is back for the shutdown, which removes the warm pool;
      // then nothing of this instance may remain. Counted on the real
      // engine. Recovery removes a finished container just after recording
      // its result: allow for it.
      ASSERT_TRUE(proxy_->Start());
      EXPECT_TRUE(outage_server_->Stop()) << outage_server_->log();
      int left = -1;
      for (auto until = Clock::now() + seconds(10); Clock::now() < until;) {
        left = CountContainers(EngineSocketUnderTest(), outage_server_->instance());
        if (left == 0) break;
        std::this_thread::sleep_for(milliseconds(200));
      }
      EXPECT_EQ(left, 0) << "containers left behind by instance " << outage_server_->instance();
    }
    outage_server_.reset();
    proxy_.reset();
    std::error_code ec;
    std::filesystem::remove_all(proxy_dir_, ec);
  }

  void StartOutageServer(const std::string& extra_yaml) {
    outage_server_ = std::make_unique<ServerProcess>(extra_yaml, proxy_->path());
  }

  // With the engine up, starts a job that checks its input file 1.5 s in;
  // once it runs, kills the server with SIGKILL, takes the engine away and
  // restarts the server (so recovery has to wait for the engine). Returns the
  // job id.
  std::string CrashWhileRunningAndRestartWithTheEngineDown() {
    EXPECT_TRUE(proxy_->Start());
    StartOutageServer("");
    EXPECT_TRUE(outage_server_->started()) << outage_server_->log();
    std::string id = Submit(
        *outage_server_,
        Python("import os, sys, time\nprint('started', flush=True)\ntime.sleep(1.5)\n"
               "sys.exit(0 if os.path.exists('data.txt') else 7)",
               {{"files", {{{"path", "data.txt"}, {"content", "input"}}}}, {"cache", false}}));
    if (id.empty()) return "";
    EXPECT_TRUE(Printed(*outage_server_, id)) << "the job never printed";
    outage_server_->Kill9();
    proxy_->Stop();
    auto restarted = std::make_unique<ServerProcess>(*outage_server_);
    EXPECT_TRUE(restarted->started()) << restarted->log();
    outage_server_ = std::move(restarted);
    return id;
  }

  std::string proxy_dir_;
  std::unique_ptr<UnixProxy> proxy_;
  std::unique_ptr<ServerProcess> outage_server_;
};

// --- 1. Async basics -----------------------------------------------------------

TEST_F(JobsTest, SubmitAnswers202QueuedAndTheRecordEndsWithResultAndTimestamps) {
  HttpAnswer a = server_->Post("/v1/jobs", Python("print('async hello')").dump());
  ASSERT_EQ(a.status, 202) << a.body;
  ASSERT_TRUE(a.json.is_object()) << a.body;
  EXPECT_EQ(a.json["status"], "queued") << a.body;
  std::string id = Str(a.json, "id");
  EXPECT_TRUE(std::regex_match(id, std::regex("job-[0-9a-f]{24}"))) << id;

  json rec = WaitTerminal(*server_, id);
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
  rec = GetJob(*server_, id);
  EXPECT_EQ(rec["id"], id);
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
  EXPECT_EQ(TransitionNames(rec), (std::vector<std::string>{"queued", "running", "succeeded"}))
      << rec.dump();
  int64_t prev = 0;
  for (const auto& t : rec["transitions"]) {
    int64_t at = ParseRfc3339Ms(t["at"]);
    EXPECT_GT(at, 0) << t.dump();
    EXPECT_GE(at, prev) << "transitions out of order: " << rec.dump();
    prev = at;
  }
  EXPECT_GT(ParseRfc3339Ms(rec["created_at"]), 0) << rec.dump();
  EXPECT_GT(ParseRfc3339Ms(rec["started_at"]), 0) << rec.dump();
  EXPECT_GT(ParseRfc3339Ms(rec["finished_at"]), 0) << rec.dump();
  EXPECT_LE(ParseRfc3339Ms(rec["created_at"]), ParseRfc3339Ms(rec["started_at"]));
  EXPECT_LE(ParseRfc3339Ms(rec["started_at"]), ParseRfc3339Ms(rec["finished_at"]));
  EXPECT_EQ(rec["attempt"], 1);
  EXPECT_TRUE(rec["image_digest"].is_string()) << rec.dump();
  ASSERT_TRUE(rec["result"].is_object()) << rec.dump();
  EXPECT_EQ(rec["result"]["status"], "succeeded");
  EXPECT_EQ(rec["result"]["stdout"], "async hello\n");
  EXPECT_EQ(rec["result"]["exit_code"], 0);
}

// POST /v1/jobs/wait: one request waits on several jobs, for any one of
// them or for all. A gated job cannot end before the test opens its gate,
// so each answer follows the test's events, not the clock.
TEST_F(JobsTest, WaitOnManyJobsAnswersForAnyOrAll) {
  JobGates gates(*server_);
  const std::string gated = Submit(
      *server_, Python(gates.Prelude() + "wait_gate(0)\nprint('gated')", {{"cache", false}}));
  const std::string quick = Submit(*server_, Python("print('quick')", {{"cache", false}}));
  ASSERT_FALSE(gated.empty());
  ASSERT_FALSE(quick.empty());
  auto wait = [&](const json& body) { return server_->Post("/v1/jobs/wait", body.dump()); };
  auto statuses = [](const HttpAnswer& a) {
    std::vector<std::string> out;
    for (const auto& j : a.json["jobs"]) out.push_back(j["status"]);
    return out;
  };

  HttpAnswer any = wait({{"ids", {gated, quick}}, {"mode", "any"}, {"timeout_s", 300}});
  EXPECT_EQ(any.status, 200) << any.body;
  EXPECT_EQ(any.json["mode"], "any");
  ASSERT_EQ(any.json["jobs"].size(), 2u) << any.body;
  EXPECT_EQ(any.json["jobs"][0]["id"], gated) << "not in the order asked";
  EXPECT_EQ(any.json["jobs"][1]["id"], quick);
  EXPECT_EQ(statuses(any)[1], "succeeded") << any.body;
  EXPECT_NE(statuses(any)[0], "succeeded") << any.body;

  HttpAnswer not_yet = wait({{"ids", {quick, gated}}, {"timeout_s", 1}});
  EXPECT_EQ(not_yet.status, 202) << not_yet.body;
  EXPECT_EQ(not_yet.json["mode"], "all");

  auto all = std::async(std::launch::async, [&] {
    return wait({{"ids", {quick, gated}}, {"mode", "all"}, {"timeout_s", 300}});
  });
  EXPECT_TRUE(Eventually([&] { return MetricSample(*server_, "coderunner_long_requests") == 1; }))
      << "the wait never blocked on the gated job";
  EXPECT_TRUE(gates.Open(0));
  HttpAnswer done = all.get();
  EXPECT_EQ(done.status, 200) << done.body;
  EXPECT_EQ(statuses(done), (std::vector<std::string>{"succeeded", "succeeded"})) << done.body;

  // Bad requests are clear JSON errors; another id is 404.
  const std::string unknown = "job-000000000000000000000000";
  const struct {
    json body;
    int status;
    const char* code;
  } refused[] = {
      {json::object(), 400, "invalid_request"},
      {{{"ids", json::array()}}, 400, "invalid_request"},
      {{{"ids", {quick, quick}}}, 400, "invalid_request"},
      {{{"ids", {quick}}, {"mode", "some"}}, 400, "invalid_request"},
      {{{"ids", {quick}}, {"timeout_s", -1}}, 400, "invalid_request"},
      {{{"ids", {1}}}, 400, "invalid_request"},
      {{{"ids", {quick, unknown}}}, 404, "job_not_found"},
  };
  for (const auto& r : refused) {
    HttpAnswer a = wait(r.body);
    EXPECT_EQ(a.status, r.status) << r.body.dump() << " " << a.body;
    EXPECT_EQ(a.json["error"]["code"], r.code) << r.body.dump() << " " << a.body;
  }
}

TEST_F(JobsTest, WaitAnswers202WithTheCurrentRecordWhileRunningAnd200OnceTerminal) {
  JobGates gates(*server_);
  std::string id = Submit(
      *server_, Python(gates.Prelude() + "wait_gate(0)\nprint('slept')", {{"cache", false}}));
  ASSERT_FALSE(id.empty());
  // The job cannot end before the test opens its gate: /wait sits out its
  // timeout and answers 202 with the record as it stands.
  auto t0 = Clock::now();
  HttpAnswer early = server_->Get("/v1/jobs/" + id + "/wait?timeout_s=1");
  int64_t waited = MsSince(t0);
  EXPECT_EQ(early.status, 202) << early.body;
  EXPECT_EQ(early.json["id"], id);
  EXPECT_TRUE(early.json["status"] == "queued" || early.json["status"] == "running") << early.body;
  EXPECT_TRUE(early.json["result"].is_null()) << early.body;
  EXPECT_GE(waited, 900) << "/wait?timeout_s=1 returned early";

  // A /wait blocked on the job when it ends is woken by the end. Its
  // timeout, the longest allowed (jobs.max_wait_s, 300 s), outlasts the
  // client's (120 s): a /wait that sat it out would fail, not answer 200.
  EXPECT_EQ(MetricSample(*server_, "coderunner_long_requests"), 0);
  auto done = std::async(std::launch::async,
                         [&] { return server_->Get("/v1/jobs/" + id + "/wait?timeout_s=300"); });
  // It holds a long-request slot only once it found the job not terminal.
  EXPECT_TRUE(Eventually([&] { return MetricSample(*server_, "coderunner_long_requests") == 1; }))
      << "the /wait never blocked on the job";
  EXPECT_TRUE(gates.Open(0)) << "the job's /output was not found";
  HttpAnswer woken = done.get();
  EXPECT_EQ(woken.status, 200) << woken.body;
  EXPECT_EQ(woken.json["status"], "succeeded") << woken.body;
  EXPECT_EQ(woken.json["result"]["stdout"], "slept\n") << woken.body;

  // On a terminal job /wait answers at once, again with a timeout longer
  // than the client's.
  HttpAnswer again = server_->Get("/v1/jobs/" + id + "/wait?timeout_s=300");
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.json["status"], "succeeded") << again.body;
}

TEST_F(JobsTest, ListFiltersByStatusAndPagesWithoutDuplicates) {
  std::vector<std::string> ids;
  for (int i = 0; i < 7; ++i) {
    ids.push_back(
        Submit(*server_, Python("print('list " + std::to_string(i) + "')", {{"cache", false}})));
    ASSERT_FALSE(ids.back().empty());
  }
  for (const auto& id : ids) EXPECT_EQ(WaitTerminal(*server_, id)["status"], "succeeded");

  // Pages of 3, following next_cursor until it is null.
  std::vector<std::string> seen;
  std::string cursor;
  int pages = 0;
  int64_t prev_created = INT64_MAX;
  for (;;) {
    std::string path = "/v1/jobs?limit=3" + (cursor.empty() ? "" : "&cursor=" + cursor);
    HttpAnswer a = server_->Get(path);
    ASSERT_EQ(a.status, 200) << a.body;
    ASSERT_TRUE(a.json["jobs"].is_array()) << a.body;
    EXPECT_LE(a.json["jobs"].size(), 3u);
    ++pages;
    for (const auto& j : a.json["jobs"]) {
      seen.push_back(Str(j, "id"));
      int64_t created = ParseRfc3339Ms(j["created_at"]);
      EXPECT_LE(created, prev_created) << "list is not newest first";
      prev_created = created;
    }
    ASSERT_TRUE(a.json.contains("next_cursor")) << a.body;
    if (a.json["next_cursor"].is_null()) break;
    ASSERT_TRUE(a.json["next_cursor"].is_string()) << a.body;
    cursor = a.json["next_cursor"];
    ASSERT_LT(pages, 20) << "pagination does not end";
  }
  std::set<std::string> unique(seen.begin(), seen.end());
  EXPECT_EQ(unique.size(), seen.size()) << "a job appeared on two pages";
  EXPECT_EQ(seen.size(), ids.size());
  EXPECT_EQ(pages, 3);  // 3 + 3 + 1.
  for (const auto& id : ids) EXPECT_EQ(unique.count(id), 1u) << id << " missing from the list";

  // Status filter.
  std::vector<json> succeeded = ListAll(*server_, "status=succeeded");
  EXPECT_EQ(succeeded.size(), ids.size());
  for (const auto& j : succeeded) EXPECT_EQ(j["status"], "succeeded") << j.dump();
  EXPECT_TRUE(ListAll(*server_, "status=running").empty());
  EXPECT_TRUE(ListAll(*server_, "status=failed").empty());
}

TEST_F(JobsTest, BatchAnswersIdsInOrderAndPerEntryErrors) {
  json batch = {{"jobs",
                 {Python("print('b0')", {{"cache", false}}),
                  {{"language", "python"}},  // No code.
                  Python("print('b2')", {{"cache", false}}),
                  {{"language", "cobol"}, {"code", "1"}},
                  Python("print('b4')", {{"cache", false}})}}};
  HttpAnswer a = server_->Post("/v1/jobs/batch", batch.dump());
  ASSERT_EQ(a.status, 202) << a.body;
  ASSERT_TRUE(a.json["jobs"].is_array()) << a.body;
  ASSERT_EQ(a.json["jobs"].size(), 5u) << a.body;
  const json& jobs = a.json["jobs"];
  EXPECT_EQ(jobs[1]["error"]["code"], "invalid_request") << a.body;
  EXPECT_EQ(jobs[3]["error"]["code"], "unknown_language") << a.body;
  EXPECT_FALSE(jobs[1].contains("id"));
  for (int i : {0, 2, 4}) {
    SCOPED_TRACE(i);
    EXPECT_EQ(jobs[i]["status"], "queued") << jobs[i].dump();
    EXPECT_FALSE(jobs[i].contains("error")) << jobs[i].dump();
    json rec = WaitTerminal(*server_, Str(jobs[i], "id"));
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
    EXPECT_EQ(rec["result"]["stdout"], "b" + std::to_string(i) + "\n") << "ids out of order";
  }
  // Only the good entries became jobs.
  EXPECT_EQ(ListAll(*server_, "").size(), 3u);
}

TEST_F(JobsTest, BatchOverMaxBatchOrEmptyIs400AndAcceptsNothing) {
  struct Case {
    const char* name;
    size_t entries;
  };
  for (const Case& c : {Case{"51 entries (max_batch 50)", 51}, Case{"empty", 0}}) {
    SCOPED_TRACE(c.name);
    json jobs = json::array();
    for (size_t i = 0; i < c.entries; ++i) jobs.push_back(Python("print(1)"));
    HttpAnswer a = server_->Post("/v1/jobs/batch", json{{"jobs", jobs}}.dump());
    EXPECT_EQ(a.status, 400) << a.body;
    EXPECT_EQ(a.json["error"]["code"], "invalid_request") << a.body;
  }
  EXPECT_TRUE(ListAll(*server_, "").empty());
}

// --- 2. kill -9 mid-flight ---------------------------------------------------------

TEST_F(JobsCrashTest, KillNineMidFlightLosesNothing) {
  constexpr int kJobs = 50;
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    // The first two are still running at the kill below, which comes as
    // soon as two run: later jobs run after the restart, where a sleep
    // would only hold a worker.
    bool sleeps = i < 2;
    std::string code = (sleeps ? "import time\ntime.sleep(1)\n" : "") + std::string("print('job ") +
                       std::to_string(i) + "')";
    ids.push_back(Submit(*server_, Python(code, {{"cache", false}})));
    ASSERT_FALSE(ids.back().empty());
  }
  // At least two running (the first two sleep for a second).
  auto deadline = Clock::now() + seconds(60);
  size_t running = 0;
  while (Clock::now() < deadline) {
    running = ListAll(*server_, "status=running").size();
    if (running >= 2) break;
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_GE(running, 2u) << "never saw two running jobs";
  std::map<std::string, int> before;
  for (const auto& j : ListAll(*server_, "")) ++before[Str(j, "status")];

  server_->Kill9();
  int left_running = CountContainers(server_->socket(), server_->instance());
  auto restart = Clock::now();
  auto restarted = std::make_unique<ServerProcess>(*server_);
  ASSERT_TRUE(restarted->started()) << restarted->log();
  int64_t listening_ms = MsSince(restart);
  server_ = std::move(restarted);  // TearDown checks the restarted one.

  // Recovery runs in the background; its report is logged.
  int64_t recovery_ms = -1;
  std::string recovery_line;
  for (auto until = Clock::now() + seconds(30); Clock::now() < until;) {
    std::string log = server_->log();
    size_t at = log.find("recovery: ");
    if (at != std::string::npos && log.find('\n', at) != std::string::npos) {
      recovery_ms = MsSince(restart);
      recovery_line = log.substr(at, log.find('\n', at) - at);
      break;
    }
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_GE(recovery_ms, 0) << "no recovery report in the log:\n" << server_->log();

  std::map<std::string, int> by_status;
  int second_attempts = 0;
  int recovered = 0;
  for (int i = 0; i < kJobs; ++i) {
    SCOPED_TRACE("job " + std::to_string(i) + " " + ids[i]);
    json rec = WaitTerminal(*server_, ids[i], seconds(180));
    ++by_status[Str(rec, "status")];
    if (rec["attempt"] == 2) ++second_attempts;
    // Running jobs are re-queued once (attempt 2), or, if their container
    // had finished meanwhile, recovered from it (output lost). Either way:
    // succeeded, and nothing is interrupted after a single crash.
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
    ASSERT_TRUE(rec["result"].is_object()) << rec.dump();
    if (rec["result"].value("recovered", false)) {
      ++recovered;
      EXPECT_EQ(rec["result"]["output_lost"], true) << rec.dump();
      EXPECT_EQ(rec["result"]["exit_code"], 0) << rec.dump();
    } else {
      EXPECT_EQ(rec["result"]["stdout"], "job " + std::to_string(i) + "\n") << rec.dump();
    }
    EXPECT_LE(rec["attempt"].get<int>(), 2) << rec.dump();
  }
  int64_t drained_ms = MsSince(restart);

  int containers = -1;
  for (auto until = Clock::now() + seconds(15); Clock::now() < until;) {
    containers = CountContainers(server_->socket(), server_->instance(), server_->PoolToken());
    if (containers == 0) break;
    std::this_thread::sleep_for(milliseconds(200));
  }
  EXPECT_EQ(containers, 0) << "containers of instance " << server_->instance() << " remain";

  std::cout << "[  FIGURE  ] at kill:";
  for (const auto& [s, n] : before) std::cout << " " << s << "=" << n;
  std::cout << "\n[  FIGURE  ] after recovery:";
  for (const auto& [s, n] : by_status) std::cout << " " << s << "=" << n;
  std::cout << "\n[  FIGURE  ] " << recovery_line << std::endl;
  Figure("crash_running_at_kill", static_cast<int64_t>(running));
  Figure("crash_containers_left_by_the_dead_server", left_running);
  Figure("crash_restart_to_listening_ms", listening_ms);
  Figure("crash_restart_to_recovery_report_ms", recovery_ms);
  Figure("crash_restart_to_all_terminal_ms", drained_ms);
  Figure("crash_succeeded", by_status["succeeded"]);
  Figure("crash_attempt_2", second_attempts);
  Figure("crash_recovered_from_container", recovered);
}

// --- 3. Cancel ------------------------------------------------------------------

TEST_F(JobsSerialTest, CancellingTheRunningJobFreesTheSlotAndAQueuedOneNeverRuns) {
  std::string sleeper =
      Submit(*server_, Python("import time\nprint('sleeping', flush=True)\ntime.sleep(50)",
                              {{"cache", false}, {"limits", {{"timeout_ms", 60000}}}}));
  ASSERT_FALSE(sleeper.empty());
  // Running, and its program really started (first output seen).
  ASSERT_EQ(PollUntilStatus(*server_, sleeper, "running")["status"], "running");
  std::string next = Submit(*server_, Python("print('next')", {{"cache", false}}));
  std::string never = Submit(*server_, Python("print('never')", {{"cache", false}}));
  ASSERT_FALSE(next.empty());
  ASSERT_FALSE(never.empty());
  {
    bool saw_output = false;
    server_->StreamLines(
        "/v1/jobs/" + sleeper + "/events",
        [&](const std::string& line, Clock::time_point) {
          saw_output = line.rfind("event: stdout", 0) == 0;
          return !saw_output;
        },
        seconds(30));
    ASSERT_TRUE(saw_output) << "the sleeping job never printed";
  }

  // A queued job cancelled: cancelled at once, never runs.
  HttpAnswer c = server_->Delete("/v1/jobs/" + never);
  ASSERT_EQ(c.status, 200) << c.body;
  EXPECT_EQ(c.json["status"], "cancelled") << c.body;
  EXPECT_EQ(GetJob(*server_, next)["status"], "queued");

  // The running one: cancelled at once; the next job starts promptly.
  int64_t delete_at = WallNowMs();
  auto t0 = Clock::now();
  HttpAnswer d = server_->Delete("/v1/jobs/" + sleeper);
  int64_t delete_ms = MsSince(t0);
  ASSERT_EQ(d.status, 200) << d.body;
  EXPECT_EQ(d.json["status"], "cancelled") << d.body;
  EXPECT_EQ(d.json["result"]["status"], "cancelled") << d.body;

  // The sleeper would hold the only slot for 50 s more: the next job can
  // end within this deadline only if cancelling freed it.
  json next_rec = WaitTerminal(*server_, next, seconds(30));
  EXPECT_EQ(next_rec["status"], "succeeded") << next_rec.dump();
  EXPECT_EQ(next_rec["result"]["stdout"], "next\n");
  int64_t started = ParseRfc3339Ms(next_rec["started_at"]);
  ASSERT_GT(started, 0) << next_rec.dump();
  int64_t slot_freed_ms = started - delete_at;
  Figure("cancel_delete_request_ms", delete_ms);
  Figure("cancel_delete_to_next_started_ms", slot_freed_ms);

  // Both stay cancelled; the running one ran, the queued one never did.
  json s = WaitTerminal(*server_, sleeper);
  EXPECT_EQ(s["status"], "cancelled") << s.dump();
  EXPECT_EQ(TransitionNames(s), (std::vector<std::string>{"queued", "running", "cancelled"}))
      << s.dump();
  json n = GetJob(*server_, never);
  EXPECT_EQ(n["status"], "cancelled") << n.dump();
  EXPECT_EQ(TransitionNames(n), (std::vector<std::string>{"queued", "cancelled"})) << n.dump();
  EXPECT_TRUE(n["started_at"].is_null()) << n.dump();
  EXPECT_EQ(n["result"]["stdout"], "") << n.dump();

  // Cancelling a terminal job changes nothing.
  HttpAnswer again = server_->Delete("/v1/jobs/" + next);
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.json["status"], "succeeded") << again.body;
}

// --- 4. Full queue ----------------------------------------------------------------

TEST_F(JobsFullQueueTest, FullQueueAnswers429AndEveryAcceptedJobFinishes) {
  std::vector<std::pair<int, std::string>> accepted;
  int rejected = 0;
  for (int i = 0; i < 20; ++i) {
    json body = Python("import time\ntime.sleep(0.5)\nprint(" + std::to_string(i) + ")",
                       {{"cache", false}});
    HttpAnswer a = server_->Post("/v1/jobs", body.dump());
    if (a.status == 202) {
      accepted.emplace_back(i, Str(a.json, "id"));
      continue;
    }
    ++rejected;
    EXPECT_EQ(a.status, 429) << a.body;
    EXPECT_EQ(a.json["error"]["code"], "queue_full") << a.body;
    EXPECT_TRUE(a.headers.count("retry-after")) << "429 without Retry-After";
    if (a.headers.count("retry-after")) {
      EXPECT_GE(std::stoi(a.headers["retry-after"]), 1);
    }
  }
  Figure("full_queue_accepted", static_cast<int64_t>(accepted.size()));
  Figure("full_queue_rejected", rejected);
  // 5 queued plus at most a couple taken by the single worker meanwhile.
  EXPECT_GE(accepted.size(), 5u);
  EXPECT_LE(accepted.size(), 8u);
  EXPECT_GE(rejected, 12);

  for (const auto& [i, id] : accepted) {
    json rec = WaitTerminal(*server_, id);
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
    EXPECT_EQ(rec["result"]["stdout"], std::to_string(i) + "\n");
  }
  EXPECT_EQ(ListAll(*server_, "").size(), accepted.size()) << "a rejected job was stored";
  // Once drained, jobs are accepted again.
  std::string later = Submit(*server_, Python("print('after')", {{"cache", false}}));
  EXPECT_EQ(WaitTerminal(*server_, later)["status"], "succeeded");
}

// --- 5. Engine unavailable ------------------------------------------------------

TEST_F(JobsEngineOutageTest, JobAcceptedWhileEngineIsDownRunsOnceItReturns) {
  StartOutageServer("jobs: {engine_retry_s: 20}\n");
  ASSERT_TRUE(outage_server_->started()) << outage_server_->log();

  // Synchronous: a quick 503, not a hang.
  auto t0 = Clock::now();
  HttpAnswer sync = outage_server_->Execute("python", "print(1)");
  int64_t sync_ms = MsSince(t0);
  EXPECT_EQ(sync.status, 503) << sync.body;
  EXPECT_EQ(sync.json["error"]["code"], "engine_unavailable") << sync.body;
  // Generous: it must not sit out jobs.engine_retry_s (20 s), as a queued
  // job does.
  EXPECT_LT(sync_ms, 20000);
  Figure("outage_execute_503_ms", sync_ms);

  // Asynchronous: accepted, and it waits for the engine.
  std::string id = Submit(*outage_server_, Python("print('waited for the engine')"));
  ASSERT_FALSE(id.empty());
  // A worker tried the engine, failed, and retries: the job is not
  // terminal, it waits for the engine.
  ASSERT_TRUE(Eventually([&] {
    return outage_server_->log().find("job " + id + ": engine unavailable, retrying") !=
           std::string::npos;
  })) << outage_server_->log();
  std::string waiting = GetJob(*outage_server_, id)["status"];
  EXPECT_TRUE(waiting == "queued" || waiting == "running") << waiting;
  ASSERT_TRUE(proxy_->Start());
  t0 = Clock::now();
  json rec = WaitTerminal(*outage_server_, id, seconds(60));
  Figure("outage_engine_back_to_job_done_ms", MsSince(t0));
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump() << "\n" << outage_server_->log();
  EXPECT_EQ(rec["result"]["stdout"], "waited for the engine\n") << rec.dump();
  // It ran exactly once.
  EXPECT_EQ(TransitionNames(rec), (std::vector<std::string>{"queued", "running", "succeeded"}))
      << rec.dump();
  EXPECT_EQ(rec["attempt"], 1) << rec.dump();
  // And the service works normally now.
  HttpAnswer after = outage_server_->Execute("python", "print(2)");
  EXPECT_EQ(after.status, 200) << after.body;
  EXPECT_EQ(after.json["stdout"], "2\n") << after.body;
}

// Issue 30: with both workers waiting for the engine (two async jobs
// retrying), /v1/execute queued behind them and answered 503 after 31 s.
// It answers while they still wait.
TEST_F(JobsEngineOutageTest, ExecuteAnswers503AtOnceWhileJobsWaitForTheEngine) {
  StartOutageServer("jobs: {engine_retry_s: 20, max_concurrent: 2}\n");
  ASSERT_TRUE(outage_server_->started()) << outage_server_->log();
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    ids.push_back(Submit(*outage_server_, Python("print('job " + std::to_string(i) + "')")));
    ASSERT_FALSE(ids.back().empty());
  }
  for (const std::string& id : ids) {
    ASSERT_TRUE(Eventually([&] {
      return outage_server_->log().find("job " + id + ": engine unavailable, retrying") !=
             std::string::npos;
    })) << outage_server_->log();
  }
  HttpAnswer sync = outage_server_->Execute("python", "print(1)");
  EXPECT_EQ(sync.status, 503) << sync.body;
  EXPECT_EQ(sync.json["error"]["code"], "engine_unavailable") << sync.body;
  // It did not wait for a worker: both still wait for the engine.
  for (const std::string& id : ids) {
    std::string status = GetJob(*outage_server_, id)["status"];
    EXPECT_TRUE(status == "queued" || status == "running") << id << ": " << status;
  }
  ASSERT_TRUE(proxy_->Start());
  for (const std::string& id : ids) {
    EXPECT_EQ(WaitTerminal(*outage_server_, id, seconds(60))["status"], "succeeded");
  }
  HttpAnswer after = outage_server_->Execute("python", "print(2)");
  EXPECT_EQ(after.status, 200) << after.body;
}

TEST_F(JobsEngineOutageTest, JobEndsAsEngineUnavailableWhenTheEngineGoesAwayForGood) {
  ASSERT_TRUE(proxy_->Start());
  StartOutageServer("jobs: {engine_retry_s: 1}\n");
  ASSERT_TRUE(outage_server_->started()) << outage_server_->log();
  HttpAnswer warm = outage_server_->Execute("python", "print('up')");
  ASSERT_EQ(warm.status, 200) << warm.body;

  proxy_->Stop();
  auto t0 = Clock::now();
  std::string id = Submit(*outage_server_, Python("print('never runs')"));
  ASSERT_FALSE(id.empty());
  json rec = WaitTerminal(*outage_server_, id, seconds(30));
  int64_t ms = MsSince(t0);
  Figure("outage_gone_to_job_error_ms", ms);
  EXPECT_EQ(rec["status"], "error") << rec.dump();
  EXPECT_EQ(rec["result"]["error"]["code"], "engine_unavailable") << rec.dump();
  HttpAnswer sync = outage_server_->Execute("python", "print(1)");
  EXPECT_EQ(sync.status, 503) << sync.body;
  EXPECT_EQ(sync.json["error"]["code"], "engine_unavailable") << sync.body;

  // The engine returns: jobs run again.
  ASSERT_TRUE(proxy_->Start());
  std::string back = Submit(*outage_server_, Python("print('back')"));
  EXPECT_EQ(WaitTerminal(*outage_server_, back)["status"], "succeeded");
}

// Before: a job whose engine went away while it ran ended at once as
// error/engine_unavailable, although its container lived on and exited on
// its own (a client that resubmits on error ran it twice). Now its end is
// taken from the container once the engine returns, as crash recovery
// does: whether it ended during the outage or ran on after it.
TEST_F(JobsEngineOutageTest, AJobWhoseEngineWentAwayTakesItsEndFromItsContainer) {
  struct Case {
    const char* what;
    double sleep_s;     // The program's, after it printed.
    milliseconds away;  // How long the engine is gone.
    int exit_code;
  } cases[] = {
      {"it ended while the engine was away", 0.5, milliseconds(3000), 3},
      {"it still ran when the engine came back", 2.5, milliseconds(300), 0},
  };
  ASSERT_TRUE(proxy_->Start());
  StartOutageServer("jobs: {engine_retry_s: 30}\n");
  ASSERT_TRUE(outage_server_->started()) << outage_server_->log();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string id =
        Submit(*outage_server_, Python("import sys, time\nprint('started', flush=True)\n"
                                       "time.sleep(" +
                                           std::to_string(c.sleep_s) +
                                           ")\n"
                                           "sys.exit(" +
                                           std::to_string(c.exit_code) + ")",
                                       {{"cache", false}}));
    ASSERT_FALSE(id.empty());
    ASSERT_TRUE(Printed(*outage_server_, id)) << "the job never printed";
    proxy_->Stop();
    std::this_thread::sleep_for(c.away);
    ASSERT_TRUE(proxy_->Start());
    json rec = WaitTerminal(*outage_server_, id, seconds(60));
    EXPECT_EQ(rec["status"], c.exit_code == 0 ? "succeeded" : "failed") << rec.dump() << "\n"
                                                                        << outage_server_->log();
    EXPECT_EQ(rec["result"]["exit_code"], c.exit_code) << rec.dump();
    EXPECT_EQ(rec["result"]["output_lost"], true) << rec.dump();
    EXPECT_EQ(rec["attempt"], 1) << "run twice: " << rec.dump();
  }
}

TEST_F(JobsEngineOutageTest, JobEndsAsEngineUnavailableWhenTheEngineNeverComesUp) {
  StartOutageServer("jobs: {engine_retry_s: 1}\n");
  ASSERT_TRUE(outage_server_->started()) << outage_server_->log();
  auto t0 = Clock::now();
  std::string id = Submit(*outage_server_, Python("print('never runs')"));
  ASSERT_FALSE(id.empty());
  // jobs.engine_retry_s bounds how long a job waits for an unreachable
  // engine; a few seconds over it, the job must have ended.
  json rec = WaitTerminal(*outage_server_, id, seconds(15));
  int64_t ms = MsSince(t0);
  Figure("outage_never_up_to_job_error_ms", ms);
  EXPECT_EQ(rec["status"], "error") << rec.dump();
  EXPECT_EQ(rec["result"]["error"]["code"], "engine_unavailable") << rec.dump();
}

TEST_F(JobsEngineOutageTest, RestartWithTheEngineDownDoesNotFailAJobThatWasRunning) {
  std::string id = CrashWhileRunningAndRestartWithTheEngineDown();
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(outage_server_->started());
  // The job's container ends (its program exits after 1.5 s) while the
  // service cannot see the engine. Idle pooled containers keep running.
  ASSERT_TRUE(Eventually([&] {
    engine::CurlTransport transport(EngineSocketUnderTest());
    engine::ContainerClient containers(transport, seconds(30));
    auto list = containers.List({{isolation::kLabelInstance, outage_server_->instance()}});
    return list.ok() && std::any_of(list->begin(), list->end(),
                                    [](const auto& c) { return c.state == "exited"; });
  })) << "the job's container never ended";
  ASSERT_TRUE(proxy_->Start());

  json rec = WaitTerminal(*outage_server_, id, seconds(60));
  // Whether recovered from its container or run again, the job did nothing
  // wrong: exit 7 means its workspace was deleted while it still ran.
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump() << "\n" << outage_server_->log();
  EXPECT_NE(rec["result"]["exit_code"], 7) << "the restart deleted the running job's workspace";
}

TEST_F(JobsEngineOutageTest, WaitHonoursItsTimeoutWhileRecoveryIsPending) {
  std::string id = CrashWhileRunningAndRestartWithTheEngineDown();
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(outage_server_->started());
  // The job is not terminal and recovery cannot finish: /wait must wait.
  auto t0 = Clock::now();
  HttpAnswer a = outage_server_->Get("/v1/jobs/" + id + "/wait?timeout_s=2");
  int64_t waited = MsSince(t0);
  Figure("wait_during_pending_recovery_ms", waited);
  EXPECT_EQ(a.status, 202) << a.body;
  EXPECT_EQ(a.json["status"], "running") << a.body;
  EXPECT_GE(waited, 1900) << "/wait?timeout_s=2 answered at once";
  ASSERT_TRUE(proxy_->Start());
  WaitTerminal(*outage_server_, id, seconds(60));
}

// --- 6. Server-Sent Events ------------------------------------------------------

TEST_F(JobsTest, EventsStreamOutputLiveThenStatusThenResult) {
  // Line i+1 is printed only once the test, reading the stream, has
  // received line i and opened gate i: the job can succeed only if each
  // line reaches the reader while the job still runs.
  JobGates gates(*server_);
  std::string id =
      Submit(*server_, Python(gates.Prelude() + "for i in range(5):\n"
                                                "    print(f'line {i}', flush=True)\n"
                                                "    wait_gate(i)\n",
                              {{"cache", false}, {"limits", {{"timeout_ms", 30000}}}}));
  ASSERT_FALSE(id.empty());
  int http_status = 0;
  int opened = 0;
  std::vector<std::string> status_when_received;
  std::vector<SseEvent> events =
      ReadEvents(*server_, id, seconds(60), &http_status, [&](const SseEvent& e) {
        if (e.name != "stdout" || e.data["data"] != "line " + std::to_string(opened) + "\n") {
          return;
        }
        status_when_received.push_back(Str(GetJob(*server_, id), "status"));
        opened += gates.Open(opened);
      });
  EXPECT_EQ(http_status, 200);
  ASSERT_FALSE(events.empty());
  std::vector<std::string> names;
  for (const auto& e : events) names.push_back(e.name);
  std::string trace;
  for (const auto& e : events) trace += e.name + " " + e.data.dump() + "\n";
  SCOPED_TRACE(trace);

  // Every line arrived while the job ran (it waited for the test to see it).
  EXPECT_EQ(opened, 5) << "output did not arrive while the job ran";
  EXPECT_EQ(status_when_received, std::vector<std::string>(5, "running"));
  EXPECT_EQ(names.front(), "state");
  ASSERT_EQ(names.back(), "result");
  std::vector<const SseEvent*> out;
  for (const auto& e : events) {
    if (e.name == "stdout") out.push_back(&e);
  }
  ASSERT_EQ(out.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(out[i]->data["data"], "line " + std::to_string(i) + "\n");
  }
  // succeeded is announced after the last line and before the result.
  auto last_out = std::find(names.rbegin(), names.rend(), "stdout").base() - names.begin();
  auto status_it = std::find_if(events.begin() + last_out, events.end(), [](const SseEvent& e) {
    return e.name == "status" && e.data["status"] == "succeeded";
  });
  EXPECT_NE(status_it, events.end()) << "no status succeeded after the output";
  const SseEvent& result = events.back();
  EXPECT_EQ(result.data["status"], "succeeded");
  EXPECT_EQ(result.data["result"]["stdout"], "line 0\nline 1\nline 2\nline 3\nline 4\n");

  // A client connecting afterwards: where it stands, then the result.
  std::vector<SseEvent> late = ReadEvents(*server_, id, seconds(10));
  ASSERT_EQ(late.size(), 2u);
  EXPECT_EQ(late[0].name, "state");
  EXPECT_EQ(late[0].data["status"], "succeeded");
  EXPECT_EQ(late[1].name, "result");
  EXPECT_EQ(late[1].data["result"]["stdout"], "line 0\nline 1\nline 2\nline 3\nline 4\n");
}

// --- 7. Result cache --------------------------------------------------------------

TEST_F(JobsTest, SameCodeTwiceIsCachedUnlessCacheFalse) {
  // Random output: only a cache hit can repeat it.
  const std::string code = "import random\nprint('cache', random.random())";
  HttpAnswer first = server_->Execute("python", code);
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.json["status"], "succeeded") << first.body;
  EXPECT_EQ(first.json["cached"], false) << first.body;

  HttpAnswer second = server_->Execute("python", code);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(second.json["cached"], true) << second.body;
  EXPECT_EQ(second.json["stdout"], first.json["stdout"]);
  EXPECT_EQ(second.json["exit_code"], 0);
  EXPECT_NE(second.json["id"], first.json["id"]);

  // The async route answers a hit at once, terminal.
  HttpAnswer async_hit = server_->Post("/v1/jobs", Python(code).dump());
  ASSERT_EQ(async_hit.status, 202) << async_hit.body;
  EXPECT_EQ(async_hit.json["status"], "succeeded") << async_hit.body;
  EXPECT_EQ(async_hit.json["cached"], true) << async_hit.body;
  json rec = GetJob(*server_, Str(async_hit.json, "id"));
  EXPECT_EQ(rec["cached"], true) << rec.dump();
  EXPECT_EQ(rec["result"]["stdout"], first.json["stdout"]) << rec.dump();

  HttpAnswer fresh = server_->Execute("python", code, {{"cache", false}});
  ASSERT_EQ(fresh.status, 200) << fresh.body;
  EXPECT_EQ(fresh.json["cached"], false) << fresh.body;
  EXPECT_NE(fresh.json["stdout"], first.json["stdout"]) << "cache: false did not run again";
}

TEST_F(JobsTest, TimeoutIsNeverCached) {
  const std::string code = "import time\ntime.sleep(5)";
  json limits = {{"limits", {{"timeout_ms", 1000}}}};
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    HttpAnswer a = server_->Execute("python", code, limits);
    ASSERT_EQ(a.status, 200) << a.body;
    EXPECT_EQ(a.json["status"], "timeout") << a.body;
    EXPECT_EQ(a.json["cached"], false) << a.body;
  }
}

// --- 8. Replay --------------------------------------------------------------------

TEST_F(JobsTest, ReplayRunsTheSameCodeOnTheSameImageDigest) {
  std::string id = Submit(*server_, Python("import sys\nprint('replay', sys.argv[1:])",
                                           {{"args", {"x"}}, {"cache", false}}));
  ASSERT_FALSE(id.empty());
  json original = WaitTerminal(*server_, id);
  ASSERT_EQ(original["status"], "succeeded") << original.dump();
  ASSERT_TRUE(original["image_digest"].is_string()) << original.dump();

  HttpAnswer a = server_->Post("/v1/jobs/" + id + "/replay", "");
  ASSERT_EQ(a.status, 202) << a.body;
  EXPECT_EQ(a.json["replay_of"], id) << a.body;
  EXPECT_EQ(a.json["status"], "queued") << a.body;
  std::string replay = Str(a.json, "id");
  ASSERT_FALSE(replay.empty());
  EXPECT_NE(replay, id);

  json rec = WaitTerminal(*server_, replay);
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump() << "\n" << server_->log();
  EXPECT_EQ(rec["replay_of"], id) << rec.dump();
  EXPECT_EQ(rec["image_digest"], original["image_digest"]) << rec.dump();
  EXPECT_EQ(rec["image"], original["image"]) << rec.dump();  // The name, not the digest.
  EXPECT_EQ(rec["code_sha256"], original["code_sha256"]);
  EXPECT_EQ(rec["inputs_sha256"], original["inputs_sha256"]);
  EXPECT_EQ(rec["cached"], false);
  EXPECT_EQ(rec["result"]["stdout"], original["result"]["stdout"]) << rec.dump();
  EXPECT_EQ(rec["result"]["stdout"], "replay ['x']\n");
}

// --- 9. Webhooks ------------------------------------------------------------------

TEST_F(JobsWebhookTest, CallbackReceivesTheTerminalRecord) {
  httplib::Server hook;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> bodies;
  std::string content_type;
  hook.Post("/hook", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu);
    bodies.push_back(req.body);
    content_type = req.get_header_value("Content-Type");
    cv.notify_all();
    res.status = 200;
  });
  int port = hook.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&] { hook.listen_after_bind(); });

  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/hook";
  std::string id =
      Submit(*server_, Python("print('hooked')", {{"callback_url", url}, {"cache", false}}));
  json rec = id.empty() ? json() : WaitTerminal(*server_, id);
  EXPECT_EQ(rec["callback_url"], url) << rec.dump();
  bool delivered;
  {
    std::unique_lock<std::mutex> lock(mu);
    delivered = cv.wait_for(lock, seconds(20), [&] { return !bodies.empty(); });
  }
  hook.stop();
  serving.join();
  ASSERT_TRUE(delivered) << "no webhook within 20 s\n" << server_->log();
  ASSERT_EQ(bodies.size(), 1u);
  json posted = json::parse(bodies[0], nullptr, false);
  ASSERT_TRUE(posted.is_object()) << bodies[0];
  EXPECT_EQ(posted["id"], id);
  EXPECT_EQ(posted["status"], "succeeded") << bodies[0];
  EXPECT_EQ(posted["result"]["stdout"], "hooked\n") << bodies[0];
  EXPECT_NE(content_type.find("application/json"), std::string::npos) << content_type;
}

TEST_F(JobsTest, PrivateCallbackUrlIsRefusedAtSubmit) {
  for (const char* url : {"http://127.0.0.1:1/x", "http://localhost/x", "http://10.0.0.1/x",
                          "http://169.254.169.254/latest", "ftp://example.com/x", "not a url"}) {
    SCOPED_TRACE(url);
    HttpAnswer a = server_->Post("/v1/jobs", Python("print(1)", {{"callback_url", url}}).dump());
    EXPECT_EQ(a.status, 400) << a.body;
    EXPECT_EQ(a.json["error"]["code"], "invalid_callback_url") << a.body;
  }
  EXPECT_TRUE(ListAll(*server_, "").empty());
}

// --- 10. Redaction ----------------------------------------------------------------

TEST_F(JobsTest, StoredOutputIsRedactedWhileExecuteAnswersRaw) {
  const std::string key = "sk-proj-" + std::string("A1b2C3d4E5f6G7h8I9j0K1l2");
  const std::string code = "print('token=supersecret123')\nprint('key " + key + "')";

  std::string id = Submit(*server_, Python(code, {{"cache", false}}));
  json rec = WaitTerminal(*server_, id);
  ASSERT_EQ(rec["status"], "succeeded") << rec.dump();
  rec = GetJob(*server_, id);
  std::string stored = rec["result"]["stdout"];
  EXPECT_EQ(stored.find("supersecret123"), std::string::npos) << stored;
  EXPECT_EQ(stored.find(key), std::string::npos) << stored;
  EXPECT_NE(stored.find("token=[REDACTED]"), std::string::npos) << stored;
  EXPECT_NE(stored.find("key [REDACTED]"), std::string::npos) << stored;

  // The synchronous caller gets their own program's output as it was.
  HttpAnswer live = server_->Execute("python", code, {{"cache", false}});
  ASSERT_EQ(live.status, 200) << live.body;
  EXPECT_EQ(live.json["stdout"], "token=supersecret123\nkey " + key + "\n") << live.body;
  // ... and the record of that same job is redacted.
  json live_rec = GetJob(*server_, Str(live.json, "id"));
  EXPECT_EQ(live_rec["result"]["stdout"].get<std::string>().find("supersecret123"),
            std::string::npos)
      << live_rec.dump();
}

// --- 11. Metrics ------------------------------------------------------------------

TEST_F(JobsTest, MetricsExposeJobsQueueRunTimeAndCacheHits) {
  const std::string code = "print('metrics')";
  ASSERT_EQ(server_->Execute("python", code).status, 200);
  HttpAnswer hit = server_->Execute("python", code);  // A cache hit.
  ASSERT_EQ(hit.status, 200);
  EXPECT_EQ(hit.json["cached"], true) << hit.body;
  ASSERT_EQ(server_->Execute("bash", "exit 3").status, 200);

  HttpAnswer m = server_->Get("/metrics");
  ASSERT_EQ(m.status, 200);
  std::map<std::string, std::string> lines;  // Series (name{labels}) -> value.
  std::istringstream in(m.body);
  bool python_succeeded = false;
  bool bash_failed = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.rfind(' ');
    lines[line.substr(0, sp)] = line.substr(sp + 1);
    if (line.rfind("coderunner_jobs_total{", 0) == 0) {
      bool py = line.find("language=\"python\"") != std::string::npos;
      bool bash = line.find("language=\"bash\"") != std::string::npos;
      if (py && line.find("status=\"succeeded\"") != std::string::npos) python_succeeded = true;
      if (bash && line.find("status=\"failed\"") != std::string::npos) bash_failed = true;
    }
  }
  auto has = [&](const std::string& prefix) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const auto& kv) { return kv.first.rfind(prefix, 0) == 0; });
  };
  SCOPED_TRACE(m.body);
  EXPECT_TRUE(python_succeeded);
  EXPECT_TRUE(bash_failed);
  EXPECT_TRUE(has("coderunner_queue_depth"));
  EXPECT_TRUE(has("coderunner_job_run_seconds_bucket{"));
  ASSERT_TRUE(has("coderunner_cache_hits_total"));
  for (const auto& [series, value] : lines) {
    if (series.rfind("coderunner_cache_hits_total", 0) == 0) {
      EXPECT_GE(std::stod(value), 1.0);
    }
  }
}

// --- 12. Bad input ----------------------------------------------------------------

TEST_F(JobsTest, BadIdsAndParametersGetTheDocumentedErrors) {
  std::string id = Submit(*server_, Python("print(1)"));
  ASSERT_FALSE(id.empty());
  const std::string unknown = "job-000000000000000000000000";
  struct Case {
    const char* method;
    std::string path;
    int status;
    const char* code;  // nullptr: any.
  };
  const Case cases[] = {
      {"GET", "/v1/jobs/" + unknown, 404, nullptr},
      {"GET", "/v1/jobs/nope", 404, "not_found"},
      {"GET", "/v1/jobs/job-XYZ", 404, "not_found"},
      {"GET", "/v1/jobs/" + unknown + "/wait?timeout_s=1", 404, nullptr},
      {"GET", "/v1/jobs/" + unknown + "/events", 404, nullptr},
      {"DELETE", "/v1/jobs/" + unknown, 404, nullptr},
      {"DELETE", "/v1/jobs/nope", 404, "not_found"},
      {"POST", "/v1/jobs/" + unknown + "/replay", 404, nullptr},
      {"GET", "/v1/jobs/" + id + "/wait?timeout_s=abc", 400, "invalid_request"},
      {"GET", "/v1/jobs/" + id + "/wait?timeout_s=100000", 400, "invalid_request"},
      {"GET", "/v1/jobs/" + id + "/wait?timeout_s=-1", 400, "invalid_request"},
      {"GET", "/v1/jobs/" + id + "/wait?timeout_s=1.5", 400, "invalid_request"},
      {"GET", "/v1/jobs?status=bogus", 400, "invalid_request"},
      {"GET", "/v1/jobs?limit=0", 400, "invalid_request"},
      {"GET", "/v1/jobs?limit=abc", 400, "invalid_request"},
      {"GET", "/v1/jobs?cursor=garbage", 400, nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.method) + " " + c.path);
    std::string m = c.method;
    HttpAnswer a = m == "GET"      ? server_->Get(c.path)
                   : m == "DELETE" ? server_->Delete(c.path)
                                   : server_->Post(c.path, "");
    EXPECT_EQ(a.status, c.status) << a.body;
    ASSERT_TRUE(a.json.is_object()) << a.body;
    ASSERT_TRUE(a.json["error"].is_object()) << a.body;
    if (c.code) {
      EXPECT_EQ(a.json["error"]["code"], c.code) << a.body;
    }
    EXPECT_TRUE(a.json["error"]["message"].is_string()) << a.body;
  }
  struct BodyCase {
    const char* name;
    std::string body;
    int status;
    const char* code;
  };
  const BodyCase bodies[] = {
      {"malformed JSON", "{\"code\": ", 400, "invalid_json"},
      {"missing code", R"({"language":"python"})", 400, "invalid_request"},
      {"cache not a boolean", R"({"code":"1","cache":"yes"})", 400, "invalid_request"},
      {"callback_url not a string", R"({"code":"1","callback_url":5})", 400, "invalid_request"},
      {"limit above maximum", R"({"code":"1","limits":{"timeout_ms":600001}})", 422,
       "limit_exceeded"},
  };
  for (const auto& c : bodies) {
    SCOPED_TRACE(c.name);
    HttpAnswer a = server_->Post("/v1/jobs", c.body);
    EXPECT_EQ(a.status, c.status) << a.body;
    EXPECT_EQ(a.json["error"]["code"], c.code) << a.body;
  }
  EXPECT_EQ(WaitTerminal(*server_, id)["status"], "succeeded");
}

}  // namespace
}  // namespace coderunner::testing
