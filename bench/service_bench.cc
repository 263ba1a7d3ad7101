// service_bench: what one job costs through coderunner, against baselines
// measured in the same run on the same engine.
//
//   latency     N sequential `print(1+1)` per language through POST
//               /v1/execute, against the engine CLI (`docker run` /
//               `podman run`), the raw engine API sequence
//               create→start→wait→logs→delete, and a bare interpreter
//               start on the host; with --cold-server, also through a
//               second coderunner whose warm pool is off (the cold path)
//   throughput  HumanEval's 164 problems (prompt + canonical solution +
//               test + check(entry_point)) submitted at once through the
//               async API; every one must pass; against a sequential CLI
//               loop over the same programs
//   memory      the service's RSS idle, with 1,000 queued jobs, and while a
//               job prints 1 GiB
//   sandboxes   sandbox creation and calls in a live sandbox
//   data        issue 17: `import pandas, numpy, matplotlib` and a
//               TypeScript hello, and python print(1+1) on the data image
//               against the slim one (--slim-server), as a ratio
//               (data_bench.h)
//   store       issue 19: python print(1+1) through two services that
//               differ only in store.kind, sqlite (--sqlite-server) and
//               postgres (--pg-server), interleaved; the difference in ms
//               and the ratio (store_bench.h)
//   mcp         issue 33: python print(1+1) through the MCP server's
//               run_code (Streamable HTTP) against POST /v1/execute,
//               interleaved; the p50 ratio (mcp_bench.h)
//   packages    issue 36: a job with a package from the bench's index,
//               cached and installed the first time, against the same job
//               without packages, as ratios (packages_bench.h)
//   e2b         issue 34: an E2B sandbox's creation to its first command's
//               first output, as the SDK calls, against /v1's sandbox and
//               first execute; 20 at once; warm commands (e2b_bench.h)
//   judge       issue 35: a C++ submission judged over 100 cases in one
//               request against 100 separate jobs of it; HumanEval judged,
//               its asserts as cases, against a job a problem (judge_bench.h)
//   fleet       issue 19: HumanEval's throughput (as above) through one
//               node alone (--solo-server) against two nodes behind a
//               balancer (--fleet-server), interleaved rounds; jobs/s of
//               each, the ratio and passed/164 (fleet_bench.h)
//
// Usage: service_bench --server URL --socket SOCK --engine docker|podman
//          [--pid SERVICE_PID] [--humaneval FILE.jsonl] [--jobs N]
//          [--sections latency,throughput,memory,sandboxes,data,store]
//          [--cli-loop N] [--cold-server URL] [--slim-server URL]
//          [--sqlite-server URL --pg-server URL]
//          [--solo-server URL --fleet-server URL [--fleet-rounds N]
//           [--fleet-label TEXT]]
// --cli-loop bounds the sequential CLI baseline to N programs (the wall
// time is then scaled to 164 and marked as such); 0 runs all.
#include <httplib.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "coderunner/engine/curl_transport.h"
#include "data_bench.h"
#include "e2b_bench.h"
#include "fleet_bench.h"
#include "humaneval.h"
#include "judge_bench.h"
#include "mcp_bench.h"
#include "packages_bench.h"
#include "store_bench.h"

extern char** environ;

namespace {

using bench::Clock;
using bench::ExecuteTwo;
using bench::HumanEvalRun;
using bench::LetPoolSettle;
using bench::LoadHumanEval;
using bench::MetricSum;
using bench::Ms;
using bench::Percentile;
using bench::PrintSeries;
using bench::Problem;
using bench::RunHumanEval;
using bench::Series;
using nlohmann::json;

struct Options {
  std::string server = "http://127.0.0.1:8080";
  std::string socket;
  std::string engine = "docker";
  int pid = 0;
  std::string humaneval;
  int jobs = 30;
  std::string sections = "latency,throughput,memory,sandboxes,data,mcp,e2b";
  int cli_loop = 0;
  std::string cold_server;  // Same engine, pool off; empty = not measured.
  // Same engine and config, python on the slim image; empty = not measured.
  std::string slim_server;
  // Same engine and config, store.kind sqlite / postgres; empty = not measured.
  std::string sqlite_server, pg_server;
  // One node alone, and the balancer in front of two nodes with the same
  // total workers; empty = not measured.
  std::string solo_server, fleet_server;
  int fleet_rounds = 3;
  std::string fleet_label = "two nodes";
};

struct Language {
  std::string name;
  std::string image;
  std::vector<std::string> command;  // Runs print(1+1) in the image.
  std::vector<std::string> host;     // The same on the host.
  std::string code;                  // For /v1/execute.
};

const std::vector<Language>& Languages() {
  static const std::vector<Language> kAll = {
      {"python",
       "coderunner/python:3.11",
       {"python3", "-c", "print(1+1)"},
       // The system interpreter: a version-manager shim on PATH (pyenv)
       // would add its own ~90 ms start-up to the floor.
       {"/usr/bin/python3", "-c", "print(1+1)"},
       "print(1+1)"},
      {"javascript",
       "coderunner/node:20",
       {"node", "-e", "console.log(1+1)"},
       {"node", "-e", "console.log(1+1)"},
       "console.log(1+1)"},
      {"bash",
       "coderunner/bash:5",
       {"bash", "-c", "echo $((1+1))"},
       {"bash", "-c", "echo $((1+1))"},
       "echo $((1+1))"},
  };
  return kAll;
}

// Runs argv, output discarded (or into `out`); returns the exit status.
int Spawn(const std::vector<std::string>& args, std::string* out = nullptr) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int pipefd[2];
  if (pipe(pipefd) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) {
    if (out != nullptr) out->append(buf, n);
  }
  close(pipefd[0]);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The engine's command line, pointed at the socket under test.
std::vector<std::string> CliRun(const Options& o, const std::string& image,
                                const std::vector<std::string>& command) {
  std::vector<std::string> a;
  if (o.engine == "podman") {
    a = {"podman",   "--remote",        "--url", "unix://" + o.socket, "run",
         "--rm",     "--network",       "none",  "--ulimit",           "nofile=1024:1024",
         "--ulimit", "nproc=4096:4096", image};
  } else {
    a = {"docker", "-H", "unix://" + o.socket, "run", "--rm", "--network", "none", image};
  }
  a.insert(a.end(), command.begin(), command.end());
  return a;
}

// create→start→wait→logs→delete through the engine API, as a client that
// knows nothing of coderunner would.
bool RawApiRun(coderunner::engine::Transport& t, const Language& l) {
  using coderunner::engine::HttpRequest;
  json spec = {{"Image", l.image},
               {"Cmd", l.command},
               {"HostConfig",
                {{"NetworkMode", "none"},
                 {"Ulimits",
                  {{{"Name", "nofile"}, {"Soft", 1024}, {"Hard", 1024}},
                   {{"Name", "nproc"}, {"Soft", 4096}, {"Hard", 4096}}}}}}};
  auto created = t.Do({"POST", "/containers/create", spec.dump()});
  if (!created.ok() || created->status != 201) return false;
  std::string id = json::parse(created->body)["Id"];
  bool ok = false;
  auto started = t.Do({"POST", "/containers/" + id + "/start", ""});
  if (started.ok() && started->status / 100 == 2) {
    auto waited = t.Do({"POST", "/containers/" + id + "/wait", "", std::chrono::seconds(60)});
    auto logs = t.Do({"GET", "/containers/" + id + "/logs?stdout=1&stderr=1", ""});
    ok = waited.ok() && logs.ok() && logs->body.find('2') != std::string::npos;
  }
  (void)t.Do({"DELETE", "/containers/" + id + "?force=1", ""});
  return ok;
}

void Latency(const Options& o, httplib::Client& c) {
  coderunner::engine::CurlTransport transport(o.socket);
  std::unique_ptr<httplib::Client> cold;
  if (!o.cold_server.empty()) {
    cold = std::make_unique<httplib::Client>(o.cold_server);
    cold->set_read_timeout(120, 0);
  }
  printf(
      "\n== latency: print(1+1), %d sequential runs each (ms: p50 p95 p99, ratio to the service "
      "p50)\n",
      o.jobs);
  double hits0 = MetricSum(c, "coderunner_pool_hits_total");
  double misses0 = MetricSum(c, "coderunner_pool_misses_total");
  for (const auto& l : Languages()) {
    Series service{"coderunner /v1/execute", {}, 0}, pool_off{"coderunner, pool off", {}, 0},
        raw{"raw API create..delete", {}, 0}, cli{o.engine + " run", {}, 0},
        bare{"bare interpreter (host)", {}, 0};
    for (int i = 0; i < o.jobs; ++i) {
      // A distinct comment per run defeats the result cache.
      std::string tag =
          std::to_string(i) + "-" + std::to_string(Clock::now().time_since_epoch().count());
      std::string code = l.code + (l.name == "javascript" ? " // " : " # ") + tag;
      auto t0 = Clock::now();
      bool ok = ExecuteTwo(c, l.name, code);
      double ms = Ms(Clock::now() - t0);
      ok ? service.ms.push_back(ms) : (void)++service.failures;
      LetPoolSettle(c);

      if (cold) {
        t0 = Clock::now();
        ok = ExecuteTwo(*cold, l.name, code);
        ms = Ms(Clock::now() - t0);
        ok ? pool_off.ms.push_back(ms) : (void)++pool_off.failures;
      }

      t0 = Clock::now();
      ok = RawApiRun(transport, l);
      ms = Ms(Clock::now() - t0);
      ok ? raw.ms.push_back(ms) : (void)++raw.failures;

      t0 = Clock::now();
      std::string out;
      ok = Spawn(CliRun(o, l.image, l.command), &out) == 0 && out == "2\n";
      ms = Ms(Clock::now() - t0);
      ok ? cli.ms.push_back(ms) : (void)++cli.failures;

      t0 = Clock::now();
      out.clear();
      ok = Spawn(l.host, &out) == 0 && out == "2\n";
      ms = Ms(Clock::now() - t0);
      ok ? bare.ms.push_back(ms) : (void)++bare.failures;
    }
    double base = Percentile(service.ms, 0.5);
    printf(" %s\n", l.name.c_str());
    for (const Series* s : {&service, &pool_off, &raw, &cli, &bare}) {
      if (!s->ms.empty() || s->failures > 0) PrintSeries(*s, base);
    }
    if (!pool_off.ms.empty() && !raw.ms.empty()) {
      printf("  cold path / raw API sequence: %.2fx\n",
             Percentile(pool_off.ms, 0.5) / Percentile(raw.ms, 0.5));
    }
  }
  printf(" warm pool: %.0f hits, %.0f misses during the latency runs\n",
         std::max(0.0, MetricSum(c, "coderunner_pool_hits_total")) - std::max(0.0, hits0),
         std::max(0.0, MetricSum(c, "coderunner_pool_misses_total")) - std::max(0.0, misses0));
}

// CPU seconds (user + system) of process `pid`, from /proc/PID/stat.
double ProcCpuSeconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime.
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// CPU seconds of every process whose name is one of `names`.
double CpuOfNamed(const std::set<std::string>& names) {
  double total = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string pid = e.path().filename().string();
    if (pid.empty() || !std::isdigit(static_cast<unsigned char>(pid[0]))) continue;
    std::ifstream comm(e.path() / "comm");
    std::string name;
    if (std::getline(comm, name) && names.count(name) > 0) total += ProcCpuSeconds(std::stoi(pid));
  }
  return total;
}

// All CPUs' busy time (everything but idle and iowait), seconds.
double SystemBusySeconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  double v[10] = {0};
  in >> cpu;
  for (double& x : v) in >> x;
  return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

void Throughput(const Options& o, httplib::Client& c) {
  std::vector<Problem> problems = LoadHumanEval(o.humaneval);
  if (problems.empty()) {
    printf("\n== throughput: skipped (no --humaneval file)\n");
    return;
  }
  printf("\n== throughput: HumanEval, %zu problems submitted at once through POST /v1/jobs\n",
         problems.size());
  const std::set<std::string> kEngineDaemons = {"dockerd", "containerd", "podman"};
  double busy0 = SystemBusySeconds();
  double service0 = o.pid > 0 ? ProcCpuSeconds(o.pid) : 0;
  double daemons0 = CpuOfNamed(kEngineDaemons);
  HumanEvalRun run = RunHumanEval(c, problems);
  double wall = run.wall_s, jobs_cpu = run.jobs_cpu_s;
  int passed = run.passed;
  const std::vector<std::string>& failed = run.failed;
  printf("  coderunner (async, all at once)  %7.2f s  %6.1f jobs/s  passed %d/%zu\n", wall,
         problems.size() / wall, passed, problems.size());
  for (const auto& f : failed) printf("    failed: %s\n", f.c_str());
  // Where the CPU went during that run (2 cores = 2 CPU-seconds per second):
  // the jobs' own containers (their cgroup), this service, the engine's
  // long-lived daemons, and the rest (per-container shims, runc/conmon,
  // the kernel's container setup).
  double busy = SystemBusySeconds() - busy0;
  double service = o.pid > 0 ? ProcCpuSeconds(o.pid) - service0 : 0;
  double daemons = CpuOfNamed(kEngineDaemons) - daemons0;
  printf("  CPU during the run: %.1f CPU-s busy of %.1f available (%ld cores)\n", busy,
         wall * sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_ONLN));
  printf("    jobs (container cgroups)        %6.1f CPU-s  %5.1f ms/job\n", jobs_cpu,
         1000 * jobs_cpu / problems.size());
  printf("    coderunner                      %6.1f CPU-s  %5.1f ms/job\n", service,
         1000 * service / problems.size());
  printf("    engine daemons (%s)  %6.1f CPU-s  %5.1f ms/job\n",
         o.engine == "docker" ? "dockerd+containerd" : "podman service    ", daemons,
         1000 * daemons / problems.size());
  double rest = busy - jobs_cpu - service - daemons;
  printf("    the rest (shims, runc, kernel)  %6.1f CPU-s  %5.1f ms/job\n", rest,
         1000 * rest / problems.size());

  size_t n = o.cli_loop > 0 ? std::min<size_t>(o.cli_loop, problems.size()) : problems.size();
  auto t1 = Clock::now();
  int cli_passed = 0;
  for (size_t i = 0; i < n; ++i) {
    cli_passed +=
        Spawn(CliRun(o, "coderunner/python:3.11", {"python3", "-c", problems[i].program})) == 0;
  }
  double cli_wall = Ms(Clock::now() - t1) / 1000.0;
  double scaled = cli_wall * problems.size() / n;
  printf("  sequential %s run loop          %7.2f s  %6.1f jobs/s  passed %d/%zu%s\n",
         o.engine.c_str(), scaled, problems.size() / scaled, cli_passed, n,
         n < problems.size() ? " (measured on the first N, scaled)" : "");
  printf("  speed-up                          %7.2fx\n", scaled / wall);
}

long RssKiB(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

void Memory(const Options& o, httplib::Client& c) {
  if (o.pid <= 0) {
    printf("\n== memory: skipped (no --pid)\n");
    return;
  }
  printf("\n== memory: the service's RSS (MiB)\n");
  long idle = RssKiB(o.pid);
  printf("  idle                               %7.1f\n", idle / 1024.0);

  // 1,000 jobs that each wait a while: the workers hold a few, the queue
  // holds the rest. Then cancel them all.
  std::vector<std::string> ids;
  for (int i = 0; i < 1000; ++i) {
    json body = {
        {"language", "bash"}, {"code", "sleep 30 # " + std::to_string(i)}, {"cache", false}};
    auto r = c.Post("/v1/jobs", body.dump(), "application/json");
    if (r && r->status == 202) ids.push_back(json::parse(r->body)["id"]);
  }
  long queued = RssKiB(o.pid);
  auto stats = c.Get("/metrics");
  printf("  with %zu jobs accepted (queued)     %7.1f   (+%.1f)\n", ids.size(), queued / 1024.0,
         (queued - idle) / 1024.0);
  for (const auto& id : ids) c.Delete("/v1/jobs/" + id);
  std::this_thread::sleep_for(std::chrono::seconds(2));

  long before = RssKiB(o.pid);
  std::atomic<bool> done{false};
  std::atomic<long> peak{before};
  std::thread sampler([&] {
    while (!done) {
      long r = RssKiB(o.pid);
      if (r > peak) peak = r;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  std::string flood =
      "import sys\nb = b'x' * 65536\nfor _ in range(16384):\n    sys.stdout.buffer.write(b)\n";
  json body = {{"language", "python"},
               {"code", flood},
               {"limits", {{"timeout_ms", 60000}}},
               {"cache", false}};
  auto t0 = Clock::now();
  auto r = c.Post("/v1/execute", body.dump(), "application/json");
  double secs = Ms(Clock::now() - t0) / 1000.0;
  done = true;
  sampler.join();
  bool ok = r && r->status == 200;
  if (!ok) {
    printf("  (the 1 GiB job: %s)\n",
           r ? (std::to_string(r->status) + " " + r->body.substr(0, 300)).c_str()
             : httplib::to_string(r.error()).c_str());
  }
  printf(
      "  while a job prints 1 GiB           %7.1f   (+%.1f over %.1f before; job %s in %.1f s)\n",
      peak / 1024.0, (peak - before) / 1024.0, before / 1024.0,
      ok ? json::parse(r->body).value("status", "?").c_str() : "failed", secs);
}

}  // namespace

// Stateful sandboxes: creation, then print(1+1) calls in a live sandbox,
// against one-shot /v1/execute jobs measured here too.
void Sandboxes(const Options& o, httplib::Client& c) {
  const int creates = 10;
  printf(
      "== sandboxes: %d creations and %d sequential print(1+1) calls per language "
      "(ms: p50 p95 p99, ratio to the /v1/execute p50)\n",
      creates, o.jobs);
  for (const Language& l : Languages()) {
    Series job{"one-shot /v1/execute", {}, 0};
    for (int i = 0; i < std::min(o.jobs, 20); ++i) {
      // A distinct comment per run defeats the result cache.
      std::string code = l.code + (l.name == "javascript" ? " // s" : " # s") + std::to_string(i) +
                         "-" + std::to_string(Clock::now().time_since_epoch().count());
      auto t0 = Clock::now();
      if (!ExecuteTwo(c, l.name, code)) ++job.failures;
      job.ms.push_back(Ms(Clock::now() - t0));
      LetPoolSettle(c);
    }
    Series create{"create sandbox", {}, 0};
    std::vector<std::string> ids;
    for (int i = 0; i < creates; ++i) {
      auto t0 = Clock::now();
      auto r = c.Post("/v1/sandboxes", json{{"language", l.name}}.dump(), "application/json");
      create.ms.push_back(Ms(Clock::now() - t0));
      if (!r || r->status != 201) {
        ++create.failures;
        continue;
      }
      ids.push_back(json::parse(r->body).value("id", ""));
    }
    Series call{"execute in a sandbox", {}, 0};
    if (!ids.empty()) {
      const std::string path = "/v1/sandboxes/" + ids.front() + "/execute";
      // The first call pays for the interpreter's first imports.
      (void)c.Post(path, json{{"code", l.code}}.dump(), "application/json");
      for (int i = 0; i < o.jobs; ++i) {
        auto t0 = Clock::now();
        auto r = c.Post(path, json{{"code", l.code}}.dump(), "application/json");
        call.ms.push_back(Ms(Clock::now() - t0));
        if (!r || r->status != 200 || json::parse(r->body).value("stdout", "") != "2\n") {
          ++call.failures;
        }
      }
    }
    for (const auto& id : ids) (void)c.Delete("/v1/sandboxes/" + id);
    double base = Percentile(job.ms, 0.5);
    printf(" %s\n", l.name.c_str());
    PrintSeries(job, base);
    PrintSeries(create, base);
    PrintSeries(call, base);
  }
}

// The fleet section, when both servers and the HumanEval file are given.
void Fleet(const Options& o) {
  std::vector<Problem> problems = LoadHumanEval(o.humaneval);
  if (o.solo_server.empty() || o.fleet_server.empty() || problems.empty()) {
    printf("\n== fleet: not measured (needs --solo-server, --fleet-server and --humaneval)\n");
    return;
  }
  httplib::Client solo(o.solo_server), fleet(o.fleet_server);
  for (httplib::Client* c : {&solo, &fleet}) {
    c->set_read_timeout(600, 0);
    c->set_write_timeout(60, 0);
  }
  bench::FleetThroughput(solo, fleet, problems, o.fleet_rounds, o.fleet_label);
}

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--server") o.server = v;
    if (a == "--socket") o.socket = v;
    if (a == "--engine") o.engine = v;
    if (a == "--pid") o.pid = std::stoi(v);
    if (a == "--humaneval") o.humaneval = v;
    if (a == "--jobs") o.jobs = std::stoi(v);
    if (a == "--sections") o.sections = v;
    if (a == "--cli-loop") o.cli_loop = std::stoi(v);
    if (a == "--cold-server") o.cold_server = v;
    if (a == "--slim-server") o.slim_server = v;
    if (a == "--sqlite-server") o.sqlite_server = v;
    if (a == "--pg-server") o.pg_server = v;
    if (a == "--solo-server") o.solo_server = v;
    if (a == "--fleet-server") o.fleet_server = v;
    if (a == "--fleet-rounds") o.fleet_rounds = std::stoi(v);
    if (a == "--fleet-label") o.fleet_label = v;
  }
  httplib::Client c(o.server);
  c.set_read_timeout(600, 0);
  c.set_write_timeout(60, 0);
  printf("service_bench: engine %s (%s), server %s\n", o.engine.c_str(), o.socket.c_str(),
         o.server.c_str());
  if (o.sections.find("latency") != std::string::npos) Latency(o, c);
  if (o.sections.find("throughput") != std::string::npos) Throughput(o, c);
  if (o.sections.find("memory") != std::string::npos) Memory(o, c);
  if (o.sections.find("sandboxes") != std::string::npos) Sandboxes(o, c);
  if (o.sections.find("data") != std::string::npos) {
    std::unique_ptr<httplib::Client> slim;
    if (!o.slim_server.empty()) {
      slim = std::make_unique<httplib::Client>(o.slim_server);
      slim->set_read_timeout(120, 0);
    }
    bench::DataLatency(c, slim.get(), o.jobs, o.socket);
  }
  if (o.sections.find("store") != std::string::npos) {
    if (o.sqlite_server.empty() || o.pg_server.empty()) {
      printf("\n== store: not measured (needs --sqlite-server and --pg-server)\n");
    } else {
      httplib::Client lite(o.sqlite_server), pg(o.pg_server);
      lite.set_read_timeout(120, 0);
      pg.set_read_timeout(120, 0);
      bench::StoreLatency(lite, pg, o.jobs);
    }
  }
  if (o.sections.find("mcp") != std::string::npos) bench::McpLatency(c, std::min(o.jobs, 30));
  if (o.sections.find("e2b") != std::string::npos) bench::E2bLatency(o.server, 20, 20);
  if (o.sections.find("judge") != std::string::npos) {
    bench::JudgeCost(c, 100);
    bench::HumanEvalJudged(c, LoadHumanEval(o.humaneval));
  }
  if (o.sections.find("packages") != std::string::npos) bench::PackagesCost(c, o.jobs);
  if (o.sections.find("fleet") != std::string::npos) Fleet(o);
  return 0;
}
