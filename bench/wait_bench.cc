// wait_bench: how promptly GET /v1/jobs/{id}/wait wakes after a job ends,
// against the baseline of a client polling GET /v1/jobs/{id}, measured in
// the same run on the same server.
//
// Usage: wait_bench [--server http://127.0.0.1:8080] [--jobs N]
// For each job: submit print(1), then either block in /wait or poll every
// 50 ms; the latency is (time the client saw the terminal record) -
// (finished_at in the record). Server and client share the machine clock.
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"

namespace {

using bench::NowMs;
using bench::ParseRfc3339;
using nlohmann::json;

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

std::string Submit(httplib::Client& c, int i) {
  // A distinct comment per job defeats the result cache.
  json body = {{"code", "print(1)  # " + std::to_string(i) + " " + std::to_string(NowMs())},
               {"cache", false}};
  auto r = c.Post("/v1/jobs", body.dump(), "application/json");
  if (!r || r->status != 202) {
    fprintf(stderr, "submit: %s\n",
            r ? (std::to_string(r->status) + " " + r->body).c_str()
              : httplib::to_string(r.error()).c_str());
    return "";
  }
  return json::parse(r->body)["id"];
}

}  // namespace

int main(int argc, char** argv) {
  std::string server = "http://127.0.0.1:8080";
  int jobs = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--server") server = argv[i + 1];
    if (a == "--jobs") jobs = std::stoi(argv[i + 1]);
  }
  httplib::Client c(server);
  c.set_read_timeout(120, 0);
  std::vector<double> wait_ms, poll_ms;
  for (int i = 0; i < jobs; ++i) {
    // Server-side wait.
    std::string id = Submit(c, 2 * i);
    if (id.empty()) return fprintf(stderr, "submit failed\n"), 1;
    auto r = c.Get(("/v1/jobs/" + id + "/wait?timeout_s=60").c_str());
    int64_t seen = NowMs();
    if (!r || r->status != 200) return fprintf(stderr, "wait failed\n"), 1;
    wait_ms.push_back(
        static_cast<double>(seen - ParseRfc3339(json::parse(r->body)["finished_at"])));

    // Baseline: poll every 50 ms.
    id = Submit(c, 2 * i + 1);
    for (;;) {
      auto g = c.Get(("/v1/jobs/" + id).c_str());
      if (!g || g->status != 200) return fprintf(stderr, "poll failed\n"), 1;
      json rec = json::parse(g->body);
      if (!rec["finished_at"].is_null()) {
        poll_ms.push_back(static_cast<double>(NowMs() - ParseRfc3339(rec["finished_at"])));
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  double w50 = Percentile(wait_ms, 0.5), w95 = Percentile(wait_ms, 0.95);
  double p50 = Percentile(poll_ms, 0.5), p95 = Percentile(poll_ms, 0.95);
  printf("wake-up latency after completion, %d jobs each (ms, p50 / p95 / max):\n", jobs);
  printf("  /wait (server-side)   %6.1f / %6.1f / %6.1f\n", w50, w95, Percentile(wait_ms, 1));
  printf("  polling every 50 ms   %6.1f / %6.1f / %6.1f\n", p50, p95, Percentile(poll_ms, 1));
  printf("  ratio poll/wait p50   %6.1fx\n", w50 > 0 ? p50 / w50 : 0.0);
  return 0;
}
