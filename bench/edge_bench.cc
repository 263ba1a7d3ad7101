// edge_bench: the edge under load and faults (issue 30), each figure against
// the same server's idle baseline measured in this run:
//   - 1,000 concurrent GET /v1/jobs/{id}/wait of one tenant: how many were
//     refused or dropped, the server's RSS growth, and /healthz and
//     POST /v1/jobs p99 while they wait, against idle;
//   - HumanEval's 164 problems submitted at once and waited on from 16
//     threads: how many results came back;
//   - a 20 s engine stall (SIGSTOP of the engine's process): /healthz and
//     POST /v1/jobs p99 during it, against idle, and how the jobs ended.
//
// Usage: edge_bench --server URL --pid SERVER_PID [--engine-pid PID]
//                   [--humaneval FILE] [--waiters 1000] [--stall-s 20]
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "humaneval.h"

namespace {

using bench::Clock;
using bench::Series;
using nlohmann::json;

struct Options {
  std::string server = "http://127.0.0.1:8080";
  int server_pid = 0;
  int engine_pid = 0;
  std::string humaneval;
  int waiters = 1000;
  int stall_s = 20;
};

// The resident set of process `pid`, MiB (VmRSS); 0 when unknown.
double RssMiB(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

std::string SubmitJob(httplib::Client& c, const std::string& code) {
  json body = {{"language", "python"}, {"code", code}, {"cache", false}};
  auto r = c.Post("/v1/jobs", body.dump(), "application/json");
  if (!r || r->status != 202) return "";
  return json::parse(r->body, nullptr, false).value("id", "");
}

// /healthz `n` times and POST /v1/jobs (print) `m` times, one after another.
std::pair<Series, Series> Probe(httplib::Client& c, int n, int m, std::vector<std::string>* ids) {
  Series health, submit;
  health.name = "/healthz";
  submit.name = "POST /v1/jobs";
  for (int i = 0; i < n; ++i) {
    bench::Measure(health, [&] {
      auto r = c.Get("/healthz");
      return r && r->status == 200;
    });
  }
  for (int i = 0; i < m; ++i) {
    bench::Measure(submit, [&] {
      std::string id = SubmitJob(c, "print(1)  # " + bench::UniqueTag(i));
      if (!id.empty()) ids->push_back(id);
      return !id.empty();
    });
  }
  return {health, submit};
}

void PrintAgainst(const std::pair<Series, Series>& now, const std::pair<Series, Series>& idle,
                  const char* when) {
  printf("  %s (ms: p50 p95 p99, p99 ratio to idle):\n", when);
  for (auto [s, base] : {std::pair{&now.first, &idle.first}, {&now.second, &idle.second}}) {
    bench::PrintSeries(*s, 0);
    double base99 = bench::Percentile(base->ms, 0.99);
    if (base99 > 0) printf("    p99 %.2fx idle\n", bench::Percentile(s->ms, 0.99) / base99);
  }
}

void CancelAll(httplib::Client& c, const std::vector<std::string>& ids) {
  for (const auto& id : ids) c.Delete("/v1/jobs/" + id);
}

// 1,000 waiters of one tenant on jobs that cannot end while they wait.
void ManyWaiters(const Options& o, const std::pair<Series, Series>& idle) {
  httplib::Client c(o.server);
  c.set_read_timeout(60, 0);
  std::vector<std::string> held;
  for (int i = 0; i < o.waiters; ++i) {
    held.push_back(SubmitJob(c, "import time\ntime.sleep(600)  # " + bench::UniqueTag(i)));
  }
  const double rss_before = RssMiB(o.server_pid);
  std::map<int, int> answers;  // HTTP status (0: no answer) -> count.
  std::mutex mu;
  std::atomic<int> waiting{0};
  std::vector<std::thread> threads;
  for (const std::string& id : held) {
    threads.emplace_back([&, id] {
      httplib::Client w(o.server);
      w.set_read_timeout(60, 0);
      ++waiting;
      auto r = w.Get("/v1/jobs/" + id + "/wait?timeout_s=15");
      std::lock_guard<std::mutex> lock(mu);
      ++answers[r ? r->status : 0];
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));  // Every wait is in.
  double rss_peak = RssMiB(o.server_pid);
  std::vector<std::string> probes;
  auto loaded = Probe(c, 200, 50, &probes);
  rss_peak = std::max(rss_peak, RssMiB(o.server_pid));
  for (auto& t : threads) t.join();
  printf("%d concurrent /wait of one tenant (timeout_s=15, jobs held queued or running):\n",
         o.waiters);
  for (auto [status, n] : answers) printf("  answered %d: %d\n", status, n);
  printf("  server RSS %.1f MiB before, %.1f MiB at the peak: +%.1f MiB\n", rss_before, rss_peak,
         rss_peak - rss_before);
  PrintAgainst(loaded, idle, "while they wait");
  CancelAll(c, held);
  CancelAll(c, probes);
}

// HumanEval's problems at once, each waited on from one of 16 threads.
void HumanEvalFromSixteenThreads(const Options& o) {
  auto problems = bench::LoadHumanEval(o.humaneval);
  if (problems.empty()) return;
  httplib::Client c(o.server);
  std::vector<std::string> ids;
  const std::string salt = bench::UniqueTag(0);
  for (const auto& p : problems) ids.push_back(SubmitJob(c, p.program + "# " + salt));
  std::atomic<int> succeeded{0}, answered{0};
  std::vector<std::thread> threads;
  auto t0 = Clock::now();
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client w(o.server);
      w.set_read_timeout(320, 0);
      for (size_t i = t; i < ids.size(); i += 16) {
        auto r = w.Get("/v1/jobs/" + ids[i] + "/wait?timeout_s=300");
        if (!r || r->status != 200) continue;
        ++answered;
        if (json::parse(r->body, nullptr, false).value("status", "") == "succeeded") ++succeeded;
      }
    });
  }
  for (auto& t : threads) t.join();
  printf(
      "HumanEval-%zu submitted at once, waited on from 16 threads: %d answered, %d succeeded "
      "(%.1f s)\n",
      problems.size(), answered.load(), succeeded.load(), bench::Ms(Clock::now() - t0) / 1000);
}

// The engine stopped (SIGSTOP) for stall_s: the edge keeps answering.
void EngineStall(const Options& o, const std::pair<Series, Series>& idle) {
  if (o.engine_pid <= 0) return;
  httplib::Client c(o.server);
  c.set_read_timeout(60, 0);
  kill(o.engine_pid, SIGSTOP);
  auto t0 = Clock::now();
  std::vector<std::string> ids;
  std::pair<Series, Series> stalled;
  int ready_503 = 0, ready_calls = 0;
  while (Clock::now() - t0 < std::chrono::seconds(o.stall_s - 2)) {
    auto round = Probe(c, 20, 5, &ids);
    stalled.first.ms.insert(stalled.first.ms.end(), round.first.ms.begin(), round.first.ms.end());
    stalled.second.ms.insert(stalled.second.ms.end(), round.second.ms.begin(),
                             round.second.ms.end());
    stalled.first.failures += round.first.failures;
    stalled.second.failures += round.second.failures;
    auto r = c.Get("/readyz");
    ++ready_calls;
    ready_503 += r && r->status == 503 ? 1 : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::this_thread::sleep_until(t0 + std::chrono::seconds(o.stall_s));
  kill(o.engine_pid, SIGCONT);
  stalled.first.name = "/healthz";
  stalled.second.name = "POST /v1/jobs";
  printf("engine stopped %d s: /readyz 503 in %d of %d calls\n", o.stall_s, ready_503, ready_calls);
  PrintAgainst(stalled, idle, "during the stall");
  std::map<std::string, int> ends;
  for (const auto& id : ids) {
    auto r = c.Get("/v1/jobs/" + id + "/wait?timeout_s=120");
    ++ends[r ? json::parse(r->body, nullptr, false).value("status", "?") : "no answer"];
  }
  printf("  the %zu jobs submitted during it ended:", ids.size());
  for (auto [status, n] : ends) printf(" %s %d", status.c_str(), n);
  printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--server") o.server = v;
    if (a == "--pid") o.server_pid = std::stoi(v);
    if (a == "--engine-pid") o.engine_pid = std::stoi(v);
    if (a == "--humaneval") o.humaneval = v;
    if (a == "--waiters") o.waiters = std::stoi(v);
    if (a == "--stall-s") o.stall_s = std::stoi(v);
  }
  httplib::Client c(o.server);
  c.set_read_timeout(60, 0);
  std::vector<std::string> warm;
  auto idle = Probe(c, 200, 50, &warm);
  printf("edge, idle baseline (ms: p50 p95 p99):\n");
  bench::PrintSeries(idle.first, 0);
  bench::PrintSeries(idle.second, 0);
  for (const auto& id : warm) c.Get("/v1/jobs/" + id + "/wait?timeout_s=120");
  ManyWaiters(o, idle);
  HumanEvalFromSixteenThreads(o);
  EngineStall(o, idle);
  return 0;
}
