#include "coderunner/jobs/recovery.h"

#include <spdlog/spdlog.h>

#include <map>
#include <nlohmann/json.hpp>

#include "coderunner/api/result_json.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/sandbox/container_policy.h"

namespace coderunner::jobs {
namespace {

// The result of a job whose container finished while the service was down.
std::string RecoveredResult(const JobsContext& ctx, const JobRecord& rec,
                            const engine::ContainerState& state, JobStatus* status) {
  sandbox::RunResult r;
  r.exit_code = state.exit_code;
  r.signal = state.exit_code > 128 ? state.exit_code - 128 : 0;
  r.image = rec.image;
  r.image_digest = state.image_id;
  if (state.oom_killed) {
    r.status = sandbox::RunStatus::kOom;
    *status = JobStatus::kOom;
  } else if (state.exit_code == 0) {
    r.status = sandbox::RunStatus::kSucceeded;
    *status = JobStatus::kSucceeded;
  } else {
    r.status = sandbox::RunStatus::kFailed;
    *status = JobStatus::kFailed;
  }
  sandbox::JobSpec spec;
  api::OutputEncoding encoding = api::OutputEncoding::kUtf8;
  if (auto runnable = JobSpecFromRecord(rec, *ctx.config); runnable.ok()) {
    spec = std::move(runnable->spec);
    encoding = runnable->encoding;
  } else {
    spec.id = rec.id;
    spec.language.name = rec.language;
  }
  nlohmann::json j = api::ResultToJson(spec, r, encoding);
  j["cached"] = false;
  j["recovered"] = true;
  j["output_lost"] = true;
  return j.dump();
}

std::string InterruptedResult(const JobRecord& rec) {
  nlohmann::json j = {{"id", rec.id},
                      {"status", "error"},
                      {"exit_code", nullptr},
                      {"signal", nullptr},
                      {"stdout", ""},
                      {"stderr", ""},
                      {"stdout_truncated", false},
                      {"stderr_truncated", false},
                      {"language", rec.language},
                      {"image", rec.image},
                      {"image_digest", nullptr},
                      {"code_sha256", rec.code_sha256},
                      {"cached", false},
                      {"error",
                       {{"code", "interrupted"},
                        {"message", "the service stopped twice while this job was running"}}}};
  return j.dump();
}

int MaxRunning(const JobsContext& ctx, const std::string& tenant) {
  const config::TierConfig* tier = ctx.config->TierOfTenant(tenant);
  return tier != nullptr ? tier->max_concurrent : 0;
}

}  // namespace

StatusOr<RecoveryReport> RecoverJobs(const JobsContext& ctx) {
  RecoveryReport report;
  CR_ASSIGN_OR_RETURN(std::vector<JobRecord> pending, ctx.store->NonTerminal());
  CR_ASSIGN_OR_RETURN(std::vector<engine::ContainerSummary> containers,
                      ctx.containers->List({{sandbox::kLabelManaged, "true"},
                                            {sandbox::kLabelInstance, ctx.config->instance}}));
  std::map<std::string, std::string> container_of_job;
  for (const auto& c : containers) {
    auto it = c.labels.find(sandbox::kLabelJob);
    if (it != c.labels.end()) container_of_job[it->second] = c.id;
  }

  for (const JobRecord& rec : pending) {
    if (rec.status == JobStatus::kQueued) {
      ctx.hub->Open(rec.id, ctx.config->max_limits.output_bytes);
      ctx.queue->PushForce(rec.tenant, rec.id, MaxRunning(ctx, rec.tenant));
      ++report.requeued_queued;
      continue;
    }
    // Running when the service died.
    auto found = container_of_job.find(rec.id);
    if (found != container_of_job.end()) {
      std::string cid = found->second;
      container_of_job.erase(found);
      auto state = ctx.containers->Inspect(cid);
      if (state.ok() && !state->running && state->status == "exited") {
        JobStatus status = JobStatus::kFailed;
        std::string result = RecoveredResult(ctx, rec, *state, &status);
        Status s = ctx.store->Transition(rec.id, status, NowMs(), result, state->image_id);
        if (!s.ok()) spdlog::error("recovery: job {}: {}", rec.id, s.ToString());
        (void)ctx.containers->Remove(cid);
        ++report.recovered_finished;
        continue;
      }
      // Still running (nobody is reading its output any more) or unknown:
      // kill it; it runs again from the start.
      (void)ctx.containers->Remove(cid);
    }
    if (rec.attempt < 2) {
      Status s = ctx.store->Transition(rec.id, JobStatus::kQueued, NowMs());
      if (!s.ok()) {
        spdlog::error("recovery: requeue job {}: {}", rec.id, s.ToString());
        continue;
      }
      ctx.hub->Open(rec.id, ctx.config->max_limits.output_bytes);
      ctx.queue->PushForce(rec.tenant, rec.id, MaxRunning(ctx, rec.tenant));
      ++report.requeued_running;
    } else {
      Status s = ctx.store->Transition(rec.id, JobStatus::kError, NowMs(), InterruptedResult(rec));
      if (!s.ok()) spdlog::error("recovery: job {}: {}", rec.id, s.ToString());
      ++report.interrupted;
    }
  }
  // What is left belongs to no live job.
  for (const auto& [job, cid] : container_of_job) {
    if (ctx.containers->Remove(cid).ok()) ++report.orphans_removed;
  }
  for (const auto& c : containers) {
    if (c.labels.count(sandbox::kLabelJob) == 0 && ctx.containers->Remove(c.id).ok()) {
      ++report.orphans_removed;
    }
  }
  return report;
}

}  // namespace coderunner::jobs
