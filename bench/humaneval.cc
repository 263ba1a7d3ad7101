#include "humaneval.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "bench_common.h"

namespace bench {

using nlohmann::json;

std::vector<Problem> LoadHumanEval(const std::string& path) {
  std::vector<Problem> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json p = json::parse(line);
    Problem problem;
    problem.id = p["task_id"];
    problem.solution =
        p["prompt"].get<std::string>() + p["canonical_solution"].get<std::string>() + "\n";
    problem.test = p["test"].get<std::string>();
    problem.entry_point = p["entry_point"].get<std::string>();
    problem.program = problem.solution + problem.test + "\ncheck(" + problem.entry_point + ")\n";
    out.push_back(std::move(problem));
  }
  return out;
}

HumanEvalRun RunHumanEval(httplib::Client& c, const std::vector<Problem>& problems) {
  HumanEvalRun run;
  auto t0 = Clock::now();
  std::vector<std::string> ids;
  std::string salt = std::to_string(Clock::now().time_since_epoch().count());
  for (const auto& p : problems) {
    json body = {{"language", "python"}, {"code", p.program + "# " + salt}, {"cache", false}};
    auto r = c.Post("/v1/jobs", body.dump(), "application/json");
    ids.push_back(r && r->status == 202 ? json::parse(r->body).value("id", "") : "");
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    bool ok = false;
    if (!ids[i].empty()) {
      auto r = c.Get("/v1/jobs/" + ids[i] + "/wait?timeout_s=300");
      if (r && r->status == 200) {
        json rec = json::parse(r->body);
        ok = rec.value("status", "") == "succeeded";
        if (rec["result"].is_object() && rec["result"]["metrics"].is_object()) {
          run.jobs_cpu_s += rec["result"]["metrics"].value("cpu_ms", 0) / 1000.0;
        }
      }
    }
    ok ? (void)++run.passed : run.failed.push_back(problems[i].id);
  }
  run.wall_s = Ms(Clock::now() - t0) / 1000.0;
  return run;
}

}  // namespace bench
