#include "coderunner/jobs/recovery.h"

#include <spdlog/spdlog.h>

#include <map>
#include <nlohmann/json.hpp>

#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/workspace.h"
#include "coderunner/jobs/job_clock.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/wire/job_json.h"
#include "coderunner/wire/result_json.h"

namespace coderunner::jobs {
namespace {

// The result of a job whose container finished while the service was down.
std::string RecoveredResult(const RecoveryDeps& deps, const store::JobRecord& rec,
                            const engine::ContainerState& state, store::JobStatus* status) {
  isolation::RunResult r;
  r.exit_code = state.exit_code;
  r.signal = state.exit_code > 128 ? state.exit_code - 128 : 0;
  r.image = rec.image;
  r.image_digest = state.image_id;
  r.output_lost = true;  // Streamed, never stored by the engine.
  if (state.oom_killed) {
    r.status = isolation::RunStatus::kOom;
    *status = store::JobStatus::kOom;
  } else if (state.exit_code == 0) {
    r.status = isolation::RunStatus::kSucceeded;
    *status = store::JobStatus::kSucceeded;
  } else {
    r.status = isolation::RunStatus::kFailed;
    *status = store::JobStatus::kFailed;
  }
  isolation::JobSpec spec;
  wire::OutputEncoding encoding = wire::OutputEncoding::kUtf8;
  if (auto runnable = JobSpecFromRecord(rec, *deps.config); runnable.ok()) {
    spec = std::move(runnable->spec);
    encoding = runnable->encoding;
  } else {
    spec.id = rec.id;
    spec.language.name = rec.language;
  }
  if (spec.volume.id.empty()) {
    // The container has exited: nothing writes its /output any more, so
    // what it left is taken over as usual.
    auto set = isolation::CollectArtifacts(deps.config->artifacts.dir + "/" + rec.id,
                                           deps.config->ArtifactCapsFromConfig());
    if (set.ok()) {
      r.artifacts = std::move(set->files);
      r.artifacts_skipped = std::move(set->skipped);
    }
  }
  nlohmann::json j = wire::ResultToJson(spec, r, encoding);
  j["cached"] = false;
  j["recovered"] = true;
  return j.dump();
}

std::string InterruptedResult(const store::JobRecord& rec) {
  return wire::NotRunResultJson(
      rec, store::JobStatus::kError,
      {{"code", "interrupted"},
       {"message", "the service stopped twice while this job was running"}});
}

// After the terminal move of `rec` (`moved`): its tenant within its
// tier's bounds, or the failure logged.
void Settled(const RecoveryDeps& deps, const store::JobRecord& rec, const Status& moved) {
  if (!moved.ok()) {
    spdlog::error("recovery: job {}: {}", rec.id, moved.ToString());
  } else if (deps.footprint != nullptr) {
    deps.footprint->Enforce(rec.tenant);
  }
}

int MaxRunning(const RecoveryDeps& deps, const std::string& tenant) {
  const config::TierConfig* tier = deps.config->TierOfTenant(tenant);
  return tier != nullptr ? tier->max_concurrent : 0;
}

}  // namespace

StatusOr<std::vector<store::JobRecord>> RecoverQueued(const RecoveryDeps& deps,
                                                      RecoveryReport* report) {
  CR_ASSIGN_OR_RETURN(std::vector<store::JobRecord> pending, deps.store->NonTerminal());
  std::vector<store::JobRecord> interrupted;
  for (store::JobRecord& rec : pending) {
    deps.hub->Open(rec.id, deps.config->max_limits.output_bytes);
    if (rec.status == store::JobStatus::kQueued) {
      deps.queue->PushForce(rec.tenant, rec.id, MaxRunning(deps, rec.tenant));
      ++report->requeued_queued;
    } else {
      interrupted.push_back(std::move(rec));
    }
  }
  return interrupted;
}

Status RecoverInterrupted(const RecoveryDeps& deps, std::vector<store::JobRecord>& interrupted,
                          const std::function<std::set<std::string>()>& active,
                          RecoveryReport* report) {
  CR_ASSIGN_OR_RETURN(std::vector<engine::ContainerSummary> containers,
                      deps.containers->List({{isolation::kLabelManaged, "true"},
                                             {isolation::kLabelInstance, deps.config->instance}}));
  // Read after listing: a container listed above whose job runs now is in it.
  std::set<std::string> live = active ? active() : std::set<std::string>{};
  std::map<std::string, std::string> container_of_job;
  for (const auto& c : containers) {
    auto it = c.labels.find(isolation::kLabelJob);
    if (it != c.labels.end()) container_of_job[it->second] = c.id;
  }
  std::set<std::string> removed;
  auto drop_workspace = [&](const std::string& job) {
    (void)isolation::RemoveTree(deps.config->workspace_dir + "/" + job);
  };

  while (!interrupted.empty()) {
    const store::JobRecord& rec = interrupted.back();
    auto found = container_of_job.find(rec.id);
    if (found != container_of_job.end()) {
      std::string cid = found->second;
      auto state = deps.containers->Inspect(cid);
      if (!state.ok() && state.status().code() == StatusCode::kUnavailable) return state.status();
      // An intent's or a judgement's container is one run of several, not
      // its result: it runs again from the start like any interrupted job.
      if (state.ok() && !state->running && state->status == "exited" && rec.kind == "job") {
        store::JobStatus status = store::JobStatus::kFailed;
        std::string result = RecoveredResult(deps, rec, *state, &status);
        CR_RETURN_IF_ERROR(deps.containers->Remove(cid));
        removed.insert(cid);
        drop_workspace(rec.id);
        Status s = deps.store->Transition(rec.id, status, NowMs(), result, state->image_id, "",
                                          KeptArtifactBytes(deps.config->artifacts.dir, rec.id));
        Settled(deps, rec, s);
        deps.hub->Finish(rec.id, status, "");
        ++report->recovered_finished;
        container_of_job.erase(rec.id);
        interrupted.pop_back();
        continue;
      }
      // Still running (nobody reads its output any more) or unknown: kill
      // it; the job runs again from the start.
      CR_RETURN_IF_ERROR(deps.containers->Remove(cid));
      removed.insert(cid);
      container_of_job.erase(rec.id);
    }
    drop_workspace(rec.id);
    if (rec.attempt < 2) {
      Status s = deps.store->Transition(rec.id, store::JobStatus::kQueued, NowMs());
      if (s.ok()) {
        deps.queue->PushForce(rec.tenant, rec.id, MaxRunning(deps, rec.tenant));
        ++report->requeued_running;
      } else {
        spdlog::error("recovery: requeue job {}: {}", rec.id, s.ToString());
      }
    } else {
      Status s =
          deps.store->Transition(rec.id, store::JobStatus::kError, NowMs(), InterruptedResult(rec));
      Settled(deps, rec, s);
      deps.hub->Finish(rec.id, store::JobStatus::kError, "");
      ++report->interrupted;
    }
    interrupted.pop_back();
  }
  // What is left belongs to no live or interrupted job.
  for (const auto& c : containers) {
    auto job = c.labels.find(isolation::kLabelJob);
    if (removed.count(c.id) > 0) continue;
    if (job != c.labels.end() && live.count(job->second) > 0) continue;
    if (deps.pool != nullptr && deps.pool->Owns(c.labels)) continue;
    // Stateful sandboxes outlive restarts: the sandbox manager re-attaches.
    if (c.labels.count(isolation::kLabelSandbox) > 0) continue;
    if (deps.containers->Remove(c.id).ok()) ++report->orphans_removed;
  }
  return OkStatus();
}

StatusOr<RecoveryReport> RecoverJobs(const RecoveryDeps& deps) {
  RecoveryReport report;
  CR_ASSIGN_OR_RETURN(std::vector<store::JobRecord> interrupted, RecoverQueued(deps, &report));
  CR_RETURN_IF_ERROR(RecoverInterrupted(deps, interrupted, nullptr, &report));
  return report;
}

}  // namespace coderunner::jobs
