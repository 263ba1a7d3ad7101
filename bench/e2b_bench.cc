#include "e2b_bench.h"

#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"

namespace bench {
namespace {

using nlohmann::json;

// One Connect envelope around `message`.
std::string Envelope(const std::string& message) {
  std::string out(1, '\0');
  const uint32_t n = static_cast<uint32_t>(message.size());
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((n >> shift) & 0xff));
  return out + message;
}

struct E2bSandbox {
  std::string id, token;
};

E2bSandbox CreateE2b(httplib::Client& c) {
  auto r =
      c.Post("/e2b/v2/sandboxes", R"({"templateID":"base","timeout":300})", "application/json");
  if (!r || r->status != 201) return {};
  json j = json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {};
  return {j.value("sandboxID", ""), j.value("envdAccessToken", "")};
}

// commands.run('echo hi') as the SDK sends it, read to its first output:
// true once a data frame carrying "hi" came.
bool FirstOutput(httplib::Client& c, const E2bSandbox& s) {
  const std::string start =
      Envelope(R"({"process":{"cmd":"/bin/bash","args":["-l","-c","echo hi"]},"stdin":false})");
  bool seen = false;
  std::string got;
  httplib::Headers headers = {
      {"E2b-Sandbox-Id", s.id}, {"X-Access-Token", s.token}, {"Connect-Protocol-Version", "1"}};
  httplib::Request req;
  req.method = "POST";
  req.path = "/e2b/process.Process/Start";
  req.headers = headers;
  req.body = start;
  req.set_header("Content-Type", "application/connect+json");
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    got.append(data, n);
    // "aGkK" is base64 of "hi\n": the first output is in.
    seen = got.find("aGkK") != std::string::npos;
    return !seen;
  };
  (void)c.send(req);
  return seen;
}

// runCode('1+1') as @e2b/code-interpreter sends it: true once the main
// result 2 came.
bool RunCode(httplib::Client& c, const E2bSandbox& s) {
  httplib::Headers headers = {{"E2b-Sandbox-Id", s.id}, {"X-Access-Token", s.token}};
  auto r = c.Post("/e2b/execute", headers, R"({"code":"1+1"})", "application/json");
  return r && r->status == 200 && r->body.find(R"("text":"2")") != std::string::npos;
}

void DeleteE2b(httplib::Client& c, const E2bSandbox& s) {
  if (!s.id.empty()) (void)c.Delete("/e2b/sandboxes/" + s.id);
}

// POST /v1/sandboxes, then a first execute printing "hi".
bool V1FirstOutput(httplib::Client& c, std::string* id) {
  auto r = c.Post("/v1/sandboxes", R"({"language":"python"})", "application/json");
  if (!r || r->status != 201) return false;
  *id = json::parse(r->body).value("id", "");
  auto e = c.Post("/v1/sandboxes/" + *id + "/execute", R"x({"code":"print(\"hi\")"})x",
                  "application/json");
  return e && e->status == 200 && json::parse(e->body).value("stdout", "") == "hi\n";
}

}  // namespace

void E2bLatency(const std::string& server, int rounds, int parallel) {
  printf(
      "\n== e2b: create to first output, %d sandboxes each way one at a time, then %d E2B at "
      "once (ms: p50 p95 p99, ratio to /v1)\n",
      rounds, parallel);
  httplib::Client c(server);
  c.set_read_timeout(120, 0);
  Series v1{"/v1 create + execute", {}, 0}, e2b{"E2B create + commands.run", {}, 0};
  for (int i = 0; i < rounds; ++i) {
    std::string id;
    Measure(v1, [&] { return V1FirstOutput(c, &id); });
    if (!id.empty()) (void)c.Delete("/v1/sandboxes/" + id);
    E2bSandbox s;
    Measure(e2b, [&] {
      s = CreateE2b(c);
      return !s.id.empty() && FirstOutput(c, s);
    });
    DeleteE2b(c, s);
  }
  Series burst{"E2B, " + std::to_string(parallel) + " at once", {}, 0};
  std::mutex mu;
  std::vector<std::thread> threads;
  std::vector<E2bSandbox> made(parallel);
  for (int i = 0; i < parallel; ++i) {
    threads.emplace_back([&, i] {
      httplib::Client own(server);
      own.set_read_timeout(120, 0);
      const auto t0 = Clock::now();
      made[i] = CreateE2b(own);
      const bool ok = !made[i].id.empty() && FirstOutput(own, made[i]);
      std::lock_guard<std::mutex> lock(mu);
      if (ok) {
        burst.ms.push_back(Ms(Clock::now() - t0));
      } else {
        ++burst.failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& s : made) DeleteE2b(c, s);
  // A warm sandbox: one command after another.
  Series warm_v1{"/v1 execute, warm", {}, 0}, warm_e2b{"E2B commands.run, warm", {}, 0};
  Series warm_code{"E2B runCode('1+1'), warm", {}, 0};
  std::string id;
  E2bSandbox s = CreateE2b(c);
  if (V1FirstOutput(c, &id) && !s.id.empty()) {
    for (int i = 0; i < rounds; ++i) {
      Measure(warm_v1, [&] {
        auto e = c.Post("/v1/sandboxes/" + id + "/execute", R"x({"code":"print(\"hi\")"})x",
                        "application/json");
        return e && e->status == 200;
      });
      Measure(warm_e2b, [&] { return FirstOutput(c, s); });
      Measure(warm_code, [&] { return RunCode(c, s); });
    }
  }
  if (!id.empty()) (void)c.Delete("/v1/sandboxes/" + id);
  DeleteE2b(c, s);
  const double base = Percentile(v1.ms, 0.5);
  PrintSeries(v1, base);
  PrintSeries(e2b, base);
  PrintSeries(burst, base);
  const double warm_base = Percentile(warm_v1.ms, 0.5);
  PrintSeries(warm_v1, warm_base);
  PrintSeries(warm_e2b, warm_base);
  PrintSeries(warm_code, warm_base);
  printf("  published to first result: E2B about 440 ms median, Daytona about 110 ms\n");
}

}  // namespace bench
