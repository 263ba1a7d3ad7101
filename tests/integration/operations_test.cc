// Operations: request ids (X-Request-Id, in the logs), JSON logs, and the
// graceful shutdown (SIGTERM: running jobs finish within the grace period,
// the rest is re-queued durably and runs at the next start).
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "server_process.h"

namespace coderunner::testing {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

json Job(const std::string& code, int64_t timeout_ms = 30000) {
  return {{"language", "python"}, {"code", code}, {"limits", {{"timeout_ms", timeout_ms}}}};
}

std::string Submit(const ServerProcess& s, const json& body) {
  auto a = s.Post("/v1/jobs", body.dump());
  EXPECT_EQ(a.status, 202) << a.body;
  return a.json.is_object() ? a.json.value("id", "") : "";
}

json GetJob(const ServerProcess& s, const std::string& id) { return s.Get("/v1/jobs/" + id).json; }

json WaitTerminal(const ServerProcess& s, const std::string& id) {
  auto a = s.Get("/v1/jobs/" + id + "/wait?timeout_s=60");
  return a.json;
}

bool WaitStatus(const ServerProcess& s, const std::string& id, const std::string& status) {
  for (auto until = Clock::now() + seconds(60); Clock::now() < until;) {
    if (GetJob(s, id).value("status", "") == status) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return false;
}

httplib::Result GetWithId(const ServerProcess& s, const std::string& path,
                          const std::string& request_id) {
  httplib::Client c("127.0.0.1", s.port());
  httplib::Headers h;
  if (!request_id.empty()) h.emplace("X-Request-Id", request_id);
  return c.Get(path.c_str(), h);
}

TEST(OperationsTest, RequestIdIsEchoedAndEveryJsonLogLineCarriesIt) {
  ServerProcess server("log: {format: json}\n");
  ASSERT_TRUE(server.started()) << server.log();

  auto kept = GetWithId(server, "/v1/languages", "client-trace.42");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->status, 200);
  EXPECT_EQ(kept->get_header_value("X-Request-Id"), "client-trace.42");

  // None offered, or one that could forge log lines: ours.
  for (const std::string offered : {"", "a b\"c"}) {
    auto made = GetWithId(server, "/v1/languages", offered);
    ASSERT_TRUE(made);
    std::string id = made->get_header_value("X-Request-Id");
    EXPECT_EQ(id.rfind("req-", 0), 0u) << "offered '" << offered << "': " << id;
  }
  // Error answers carry it too.
  auto missing = GetWithId(server, "/v1/no-such-route", "trace-404");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->get_header_value("X-Request-Id"), "trace-404");
  auto bad = server.Post("/v1/execute", "{not json");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.headers["x-request-id"].rfind("req-", 0), 0u) << bad.body;

  // Every line is JSON with a timestamp, level and message, and the access
  // lines (written after the answers: waited for) carry the request ids.
  bool saw_access = false;
  bool saw_404 = false;
  int parsed = 0;
  auto scan = [&] {
    std::istringstream lines(server.log());
    std::string line;
    parsed = 0;
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
      EXPECT_TRUE(j.is_object()) << "not a JSON line: " << line;
      if (!j.is_object()) continue;
      EXPECT_TRUE(j.contains("ts") && j.contains("level") && j.contains("msg")) << line;
      ++parsed;
      std::string msg = j.value("msg", "");
      std::string rid = j.value("request_id", "");
      if (rid == "client-trace.42" && msg.find("GET /v1/languages -> 200") != std::string::npos) {
        saw_access = true;
      }
      if (rid == "trace-404" && msg.find("-> 404") != std::string::npos) saw_404 = true;
    }
    return saw_access && saw_404;
  };
  EXPECT_TRUE(Eventually(scan)) << server.log();
  EXPECT_GT(parsed, 3);
  EXPECT_TRUE(saw_access) << server.log();
  EXPECT_TRUE(saw_404) << server.log();
}

TEST(OperationsTest, TextLogLinesNameTheRequestId) {
  ServerProcess server;
  ASSERT_TRUE(server.started()) << server.log();
  auto r = GetWithId(server, "/v1/languages", "text-trace-7");
  ASSERT_TRUE(r);
  // The access line is written after the answer.
  EXPECT_TRUE(Eventually([&] {
    return server.log().find("GET /v1/languages -> 200") != std::string::npos;
  })) << server.log();
  EXPECT_NE(server.log().find("[req text-trace-7]"), std::string::npos) << server.log();
}

TEST(OperationsTest, SigtermLetsRunningJobsFinishWithinTheGrace) {
  auto server =
      std::make_unique<ServerProcess>("server: {listen: 127.0.0.1:0, shutdown_grace_s: 30}\n");
  ASSERT_TRUE(server->started()) << server->log();
  std::string id = Submit(*server, Job("import time\ntime.sleep(2)\nprint('finished')\n"));
  ASSERT_TRUE(WaitStatus(*server, id, "running"));
  EXPECT_TRUE(server->Stop(seconds(60))) << server->log();

  ServerProcess restarted(*server);
  ASSERT_TRUE(restarted.started()) << restarted.log();
  json rec = GetJob(restarted, id);
  EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
  EXPECT_EQ(rec["result"]["stdout"], "finished\n") << rec.dump();
  EXPECT_EQ(rec["attempt"], 1) << rec.dump();
}

TEST(OperationsTest, SigtermRequeuesWhatTheGraceDidNotFinishAndItRunsAtTheNextStart) {
  // One worker: the long job runs, the others wait in the queue.
  auto server = std::make_unique<ServerProcess>(
      "server: {listen: 127.0.0.1:0, shutdown_grace_s: 1}\n"
      "jobs: {max_concurrent: 1}\n");
  ASSERT_TRUE(server->started()) << server->log();
  // The long job runs until 8 s after its submission, by the wall clock
  // (the container's is the host's): far past the grace, which ends about
  // 1 s after the job is seen running. Its rerun after the restart keeps
  // the same end and so takes what is left of it, not a whole run again.
  const auto submitted = std::chrono::system_clock::now();
  const double until_s =
      std::chrono::duration<double>((submitted + seconds(8)).time_since_epoch()).count();
  std::string running =
      Submit(*server, Job("import time\ntime.sleep(max(0.0, " + std::to_string(until_s) +
                              " - time.time()))\nprint('long one')\n",
                          60000));
  ASSERT_TRUE(WaitStatus(*server, running, "running"));
  std::string queued = Submit(*server, Job("print('queued one')\n"));
  // A synchronous caller whose job cannot finish before the shutdown.
  auto sync = std::async(std::launch::async, [&] {
    return server->Post("/v1/execute", Job("print('sync one')\n").dump());
  });
  // Its job is accepted (queued) before the signal.
  for (auto until = Clock::now() + seconds(10); Clock::now() < until;) {
    auto list = server->Get("/v1/jobs?status=queued").json;
    if (list.is_object() && list["jobs"].is_array() && list["jobs"].size() >= 2) break;
    std::this_thread::sleep_for(milliseconds(20));
  }

  // The grace (1 s) ends the long job's run: it is re-queued (attempt 2
  // below), not waited for.
  EXPECT_TRUE(server->Stop(seconds(60))) << server->log();
  HttpAnswer sync_answer = sync.get();
  EXPECT_EQ(sync_answer.status, 503) << sync_answer.body;
  ASSERT_TRUE(sync_answer.json.is_object()) << sync_answer.body;
  EXPECT_EQ(sync_answer.json["error"]["code"], "shutting_down") << sync_answer.body;
  // The message names the re-queued job.
  std::string message = sync_answer.json["error"].value("message", "");
  size_t at = message.find("job-");
  ASSERT_NE(at, std::string::npos) << message;
  std::string sync_id = message.substr(at, message.find(' ', at) - at);
  EXPECT_NE(server->log().find("re-queued"), std::string::npos) << server->log();
  EXPECT_EQ(CountContainers(server->socket(), server->instance()), 0);

  ServerProcess restarted(*server);
  ASSERT_TRUE(restarted.started()) << restarted.log();
  json a = WaitTerminal(restarted, running);
  EXPECT_EQ(a["status"], "succeeded") << a.dump();
  EXPECT_EQ(a["result"]["stdout"], "long one\n") << a.dump();
  EXPECT_EQ(a["attempt"], 2) << a.dump();
  json b = WaitTerminal(restarted, queued);
  EXPECT_EQ(b["status"], "succeeded") << b.dump();
  EXPECT_EQ(b["result"]["stdout"], "queued one\n") << b.dump();
  json c = WaitTerminal(restarted, sync_id);
  EXPECT_EQ(c["status"], "succeeded") << c.dump();
  EXPECT_EQ(c["result"]["stdout"], "sync one\n") << c.dump();
}

}  // namespace
}  // namespace coderunner::testing
