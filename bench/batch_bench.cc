// batch_bench: batch throughput and fairness (issue 38), on two servers
// that differ only in their tier's container_reuse (bench/run.sh, section
// batch): one container per job (the default) and container reuse.
//
//   1. HumanEval-164 submitted at once through POST /v1/jobs on each,
//      against the sequential raw-API estimate: the first --raw-rows
//      programs run one after another through the engine API
//      (create, start, wait, logs, delete; `python3 -c PROGRAM`), the mean
//      times 164. Bound: reuse at most 0.3x the estimate, 164/164 passed.
//   2. The flood: one tenant submits 700 short programs (HumanEval's,
//      cycled) at once (POST /v1/jobs/batch, 50 a request), then three
//      other tenants 100 each. Wall time, p50
//      and p99 of each job's time from acceptance to its end (the records'
//      own timestamps), and each tenant's completion time from the first
//      submission. Bound: the three finish within 0.6x of the flooder.
//
// Usage: batch_bench --default-server URL --reuse-server URL --socket PATH
//          --humaneval FILE [--raw-rows 20] [--keys flood,a,b,c]
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_common.h"
#include "coderunner/engine/curl_transport.h"
#include "humaneval.h"

namespace {

using bench::Clock;
using bench::Ms;
using bench::NowMs;
using bench::ParseRfc3339;
using bench::Percentile;
using nlohmann::json;

constexpr double kMaxReuseOverRaw = 0.3;    // HumanEval at once, reuse / raw estimate.
constexpr double kMaxSmallOverFlood = 0.6;  // The three tenants' completion / the flooder's.
constexpr int kFloodJobs = 700, kSmallJobs = 100;

struct Options {
  std::string default_server, reuse_server, socket, humaneval;
  int raw_rows = 20;
  std::vector<std::string> keys = {"flood-key-0123456789", "a-key-0123456789", "b-key-0123456789",
                                   "c-key-0123456789"};
};

// One tenant's client: submits jobs, then waits for each.
struct Tenant {
  std::string key;
  std::vector<std::string> ids;
};

std::string Submit(httplib::Client& c, const std::string& key, const std::string& code) {
  json body = {{"language", "python"}, {"code", code}, {"cache", false}};
  httplib::Headers h = {{"Authorization", "Bearer " + key}};
  auto r = c.Post("/v1/jobs", h, body.dump(), "application/json");
  if (!r || r->status != 202) {
    fprintf(stderr, "submit: %s\n", r ? r->body.substr(0, 200).c_str() : "no answer");
    return "";
  }
  return json::parse(r->body).value("id", "");
}

// Submits `codes` as the tenant of `key` through POST /v1/jobs/batch, at
// most kBatch a request; the ids in order ("" for one refused).
std::vector<std::string> SubmitBatch(httplib::Client& c, const std::string& key,
                                     const std::vector<std::string>& codes) {
  constexpr size_t kBatch = 50;  // The route's most jobs per request.
  std::vector<std::string> ids;
  httplib::Headers h = {{"Authorization", "Bearer " + key}};
  for (size_t at = 0; at < codes.size(); at += kBatch) {
    json jobs = json::array();
    for (size_t i = at; i < std::min(codes.size(), at + kBatch); ++i) {
      jobs.push_back({{"language", "python"}, {"code", codes[i]}, {"cache", false}});
    }
    auto r = c.Post("/v1/jobs/batch", h, json{{"jobs", jobs}}.dump(), "application/json");
    json answer = r && r->status == 202 ? json::parse(r->body) : json::object();
    for (size_t i = 0; i < jobs.size(); ++i) {
      const json& e = answer.contains("jobs") ? answer["jobs"][i] : json();
      ids.push_back(e.is_object() ? e.value("id", "") : "");
    }
  }
  return ids;
}

// The job's final record, or null.
json Await(httplib::Client& c, const std::string& key, const std::string& id) {
  httplib::Headers h = {{"Authorization", "Bearer " + key}};
  for (int i = 0; i < 20 && !id.empty(); ++i) {
    auto r = c.Get(("/v1/jobs/" + id + "/wait?timeout_s=60").c_str(), h);
    if (!r || r->status != 200) continue;
    json rec = json::parse(r->body);
    std::string s = rec.value("status", "");
    if (s != "queued" && s != "running") return rec;
  }
  return nullptr;
}

// The sequential raw-API estimate for `problems` (s): the first `rows`
// through the engine API one after another, the mean times the count.
double RawEstimate(const Options& o, const std::vector<bench::Problem>& problems, int* failed) {
  coderunner::engine::CurlTransport t(o.socket);
  const size_t rows = std::min<size_t>(o.raw_rows, problems.size());
  auto t0 = Clock::now();
  for (size_t i = 0; i < rows; ++i) {
    json spec = {{"Image", "coderunner/python:3.11"},
                 {"Cmd", {"python3", "-c", problems[i].program}},
                 {"HostConfig",
                  {{"NetworkMode", "none"},
                   {"Ulimits",
                    {{{"Name", "nofile"}, {"Soft", 1024}, {"Hard", 1024}},
                     {{"Name", "nproc"}, {"Soft", 4096}, {"Hard", 4096}}}}}}};
    auto created = t.Do({"POST", "/containers/create", spec.dump()});
    if (!created.ok() || created->status != 201) {
      ++*failed;
      continue;
    }
    std::string id = json::parse(created->body)["Id"];
    auto started = t.Do({"POST", "/containers/" + id + "/start", ""});
    auto waited = t.Do({"POST", "/containers/" + id + "/wait", "", std::chrono::seconds(60)});
    (void)t.Do({"GET", "/containers/" + id + "/logs?stdout=1&stderr=1", ""});
    bool ok = started.ok() && waited.ok() && waited->status == 200 &&
              json::parse(waited->body).value("StatusCode", -1) == 0;
    if (!ok) ++*failed;
    (void)t.Do({"DELETE", "/containers/" + id + "?force=1", ""});
  }
  return Ms(Clock::now() - t0) / 1000.0 / rows * problems.size();
}

// HumanEval at once on `server` as the first tenant: wall seconds, passed.
std::pair<double, int> HumanEvalAtOnce(const Options& o, const std::string& server,
                                       const std::vector<bench::Problem>& problems) {
  httplib::Client c(server);
  c.set_read_timeout(120, 0);
  const std::string salt = std::to_string(NowMs());
  auto t0 = Clock::now();
  std::vector<std::string> ids;
  for (const auto& p : problems) ids.push_back(Submit(c, o.keys[0], p.program + "# " + salt));
  int passed = 0;
  for (const auto& id : ids) {
    json rec = Await(c, o.keys[0], id);
    passed += rec.is_object() && rec.value("status", "") == "succeeded";
  }
  return {Ms(Clock::now() - t0) / 1000.0, passed};
}

void Flood(const Options& o, const std::string& name, const std::string& server,
           const std::vector<bench::Problem>& problems) {
  httplib::Client c(server);
  c.set_read_timeout(120, 0);
  const std::string salt = std::to_string(NowMs());
  std::vector<Tenant> tenants;
  for (const auto& k : o.keys) tenants.push_back({k, {}});
  const int64_t t0 = NowMs();
  auto code = [&](size_t i, size_t t) {
    return problems[i % problems.size()].program + "# " + salt + "-" + std::to_string(t) + "-" +
           std::to_string(i);
  };
  // Each tenant's programs at once (POST /v1/jobs/batch), the flood first.
  for (size_t t = 0; t < tenants.size(); ++t) {
    std::vector<std::string> codes;
    for (int i = 0; i < (t == 0 ? kFloodJobs : kSmallJobs); ++i) codes.push_back(code(i, t));
    tenants[t].ids = SubmitBatch(c, o.keys[t], codes);
  }
  std::vector<double> all;
  std::vector<double> done_s(tenants.size(), 0);
  int failed = 0;
  int64_t last = t0;
  for (size_t t = 0; t < tenants.size(); ++t) {
    for (const auto& id : tenants[t].ids) {
      json rec = Await(c, tenants[t].key, id);
      if (!rec.is_object() || rec.value("status", "") != "succeeded") {
        ++failed;
        continue;
      }
      const int64_t created = ParseRfc3339(rec.value("created_at", ""));
      const int64_t finished = ParseRfc3339(rec.value("finished_at", ""));
      all.push_back(static_cast<double>(finished - created));
      done_s[t] = std::max(done_s[t], (finished - t0) / 1000.0);
      last = std::max(last, finished);
    }
  }
  double small = *std::max_element(done_s.begin() + 1, done_s.end());
  printf("  %-8s wall %6.2f s  job p50 %7.0f ms  p99 %7.0f ms  failed %d\n", name.c_str(),
         (last - t0) / 1000.0, Percentile(all, 0.5), Percentile(all, 0.99), failed);
  printf(
      "           done: flooder %.2f s, others %.2f / %.2f / %.2f s: %.2fx (%s: at most %.1fx)\n",
      done_s[0], done_s[1], done_s[2], done_s[3], small / done_s[0],
      small / done_s[0] <= kMaxSmallOverFlood ? "ok" : "REGRESSION", kMaxSmallOverFlood);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--default-server") o.default_server = v;
    if (a == "--reuse-server") o.reuse_server = v;
    if (a == "--socket") o.socket = v;
    if (a == "--humaneval") o.humaneval = v;
    if (a == "--raw-rows") o.raw_rows = std::stoi(v);
  }
  std::vector<bench::Problem> problems = bench::LoadHumanEval(o.humaneval);
  if (problems.empty()) {
    printf("\n== batch: skipped (no --humaneval file)\n");
    return 0;
  }
  printf(
      "\n== batch: HumanEval-%zu at once through POST /v1/jobs, one container per job and "
      "container reuse, against the sequential raw-API estimate (%d rows, scaled)\n",
      problems.size(), o.raw_rows);
  int raw_failed = 0;
  double raw = RawEstimate(o, problems, &raw_failed);
  printf("  raw API, sequential (estimate)    %7.2f s  (%d of %d rows failed)\n", raw, raw_failed,
         o.raw_rows);
  for (const auto& [name, server] : {std::pair{std::string("default"), o.default_server},
                                     std::pair{std::string("reuse"), o.reuse_server}}) {
    auto [wall, passed] = HumanEvalAtOnce(o, server, problems);
    const double ratio = wall / raw;
    printf("  %-8s (all at once)          %7.2f s  %6.1f jobs/s  passed %d/%zu  %.3fx raw%s\n",
           name.c_str(), wall, problems.size() / wall, passed, problems.size(), ratio,
           name == "reuse"
               ? (ratio <= kMaxReuseOverRaw && passed == static_cast<int>(problems.size())
                      ? "  (ok: at most 0.3x)"
                      : "  (REGRESSION: at most 0.3x)")
               : "");
  }
  printf("\n== flood: one tenant submits %d short programs at once, then three tenants %d each\n",
         kFloodJobs, kSmallJobs);
  Flood(o, "default", o.default_server, problems);
  Flood(o, "reuse", o.reuse_server, problems);
  return 0;
}
