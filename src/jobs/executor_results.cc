// JobExecutor's results: a judged job's run (RunJudged), the packages a
// job asks for (InstallPackages), and how a run's result is serialized,
// raw for its caller and redacted for the store (Serialize).
#include <nlohmann/json.hpp>

#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/jobs/redactor.h"
#include "coderunner/wire/judgement_json.h"
#include "coderunner/wire/result_json.h"
#include "executor_attempt.h"

namespace coderunner::jobs {
namespace {

// Redacts `data` in place; true if that changed it.
bool Redact(std::string& data) {
  std::string clean = RedactSecrets(data);
  if (clean == data) return false;
  data = std::move(clean);
  return true;
}

}  // namespace

void JobExecutor::RunJudged(Attempt& attempt, JobChannel& channel) {
  if (deps_.judge == nullptr) {
    attempt.result.status = isolation::RunStatus::kError;
    attempt.result.error =
        FailedPreconditionError("this service does not judge programs", "judge_unavailable");
    return;
  }
  isolation::RunHooks hooks;
  hooks.cancel = &channel.cancel_token();
  // A series' cases stream their output as RunSpec's jobs do.
  isolation::RunHooks series_hooks = hooks;
  series_hooks.on_output = [&channel](engine::StreamId s, std::string_view bytes) {
    channel.PublishOutput(s == engine::StreamId::kStderr, bytes);
  };
  judge::Judgement judged = deps_.judge->Judge(
      attempt.spec, *attempt.judge, hooks,
      [&](const isolation::JobSpec& job) { return RunSpec(job, channel, attempt.fail_fast); },
      [&](const isolation::JobSpec& program, const std::vector<isolation::SeriesCase>& cases,
          const isolation::SeriesGoOn& go_on) {
        return deps_.runner->RunSeries(program, cases, series_hooks, go_on);
      });
  attempt.result = std::move(judged.result);
  attempt.judgement = std::move(judged);
}

Status JobExecutor::InstallPackages(const store::JobRecord& record, Attempt& attempt) {
  if (deps_.packages == nullptr) {
    return FailedPreconditionError("this service installs no packages",
                                   packages::kReasonPackagesUnavailable);
  }
  // The policy of the tier the request was accepted under, as configured now.
  CR_ASSIGN_OR_RETURN(StoredRequest stored, ParseStoredRequest(record.request_json));
  const config::TierConfig* tier =
      stored.tier.empty() ? nullptr : deps_.config->FindTier(stored.tier);
  const bool npm = !attempt.spec.npm_packages.empty();
  const packages::Ecosystem ecosystem =
      npm ? packages::Ecosystem::kNpm : packages::Ecosystem::kPython;
  const packages::SourcePolicy policy = packages::PolicyFor(*deps_.config, tier).Of(ecosystem);
  std::vector<packages::Requirement> wanted;
  for (const auto& text : npm ? attempt.spec.npm_packages : attempt.spec.python_packages) {
    CR_ASSIGN_OR_RETURN(packages::Requirement r, packages::ParseRequirementOf(ecosystem, text));
    CR_RETURN_IF_ERROR(packages::CheckAllowed(policy, r.name));
    wanted.push_back(std::move(r));
  }
  // A replay installs exactly what the original did.
  CR_ASSIGN_OR_RETURN(std::vector<packages::LockedPackage> pinned,
                      packages::ParseLock(ecosystem, stored.pin_packages));
  CR_ASSIGN_OR_RETURN(packages::InstalledSet set,
                      deps_.packages->Install(record.tenant, ecosystem, policy, wanted, pinned));
  attempt.spec.package_layer = set.layer;
  attempt.packages = std::move(set);
  return OkStatus();
}

// The result's "packages": what was installed, exactly (name, version,
// sha256 of the file), whether the layer was already there, and the time.
static nlohmann::json InstalledJson(const packages::InstalledSet& set) {
  return {{packages::EcosystemName(set.ecosystem), packages::LockToJson(set.lock)},
          {"cached", set.cached},
          {"install_ms", set.install_ms}};
}

bool JobExecutor::Serialize(Attempt& attempt, std::string* raw_text, std::string* stored_text) {
  // The caller of /v1/execute gets the raw output (the code and its output
  // are theirs); what is stored and logged is redacted. Up to 2 MiB of
  // output may be in hand, so copies are made one at a time and dropped as
  // soon as they are serialized (the RSS budget while a job floods).
  // The result's JSON as `attempt` holds it now (judged: with its verdicts).
  auto result_text = [&attempt] {
    nlohmann::json j = wire::ResultToJson(attempt.spec, attempt.result, attempt.encoding);
    j["cached"] = false;
    if (attempt.packages) j["packages"] = InstalledJson(*attempt.packages);
    if (attempt.judgement) {
      j["judge"] = wire::JudgementToJson(*attempt.judgement, attempt.encoding);
    }
    return j.dump();
  };
  *raw_text = result_text();
  // Usually nothing is redacted; the stored text is then the raw text and
  // needs no second serialization.
  isolation::RunResult& result = attempt.result;
  bool redacted = Redact(result.stdout_data);
  redacted = Redact(result.stderr_data) || redacted;
  if (attempt.judgement) {
    for (judge::CaseReport& c : attempt.judgement->cases) {
      redacted = Redact(c.result.stdout_data) || redacted;
      redacted = Redact(c.result.stderr_data) || redacted;
    }
  }
  if (redacted) *stored_text = result_text();
  // Freed, not just emptied: assigning an empty string keeps the capacity.
  std::string().swap(result.stdout_data);
  std::string().swap(result.stderr_data);
  attempt.judgement.reset();
  return redacted;
}

}  // namespace coderunner::jobs
