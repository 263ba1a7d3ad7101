#include "job_janitor.h"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "coderunner/isolation/compiling_runner.h"
#include "coderunner/isolation/container_policy.h"
#include "coderunner/isolation/workspace.h"
#include "coderunner/jobs/job_clock.h"

namespace coderunner::jobs {

void JobJanitor::Start() {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, std::chrono::seconds(deps_.config->jobs.janitor_interval_s),
                   [&] { return stopping_; });
      if (stopping_) break;
      lock.unlock();
      JanitorReport r = RunOnce();
      if (r.containers_removed + r.workspaces_removed + r.jobs_purged > 0) {
        spdlog::info("janitor: removed {} containers, {} workspaces; purged {} jobs, {} cache",
                     r.containers_removed, r.workspaces_removed, r.jobs_purged, r.cache_purged);
      }
      lock.lock();
    }
  });
}

void JobJanitor::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool JobJanitor::Executing(const std::string& job_or_step) const {
  return active_jobs_().count(isolation::OwningJobId(job_or_step)) > 0;
}

JanitorReport JobJanitor::RunOnce() {
  JanitorReport report;
  // Snapshot the executing jobs first: a job that starts after the snapshot
  // creates its container after it too, and a container listed before the
  // snapshot whose job is executing is in the snapshot.
  std::set<std::string> active = active_jobs_();
  auto list = deps_.containers->List(
      {{isolation::kLabelManaged, "true"}, {isolation::kLabelInstance, deps_.config->instance}});
  if (list.ok()) {
    for (const auto& c : *list) {
      auto job = c.labels.find(isolation::kLabelJob);
      if (job != c.labels.end() && active.count(isolation::OwningJobId(job->second)) > 0) continue;
      // Warm containers (idle, or serving a job) are the pool's to remove.
      if (deps_.pool != nullptr && deps_.pool->Owns(c.labels)) continue;
      // Stateful sandboxes are the sandbox manager's to remove.
      if (c.labels.count(isolation::kLabelSandbox) > 0) continue;
      // Only containers of jobs that were already running at the snapshot
      // are safe to keep; recheck to avoid removing a just-started one.
      if (job != c.labels.end() && Executing(job->second)) continue;
      if (deps_.containers->Remove(c.id).ok()) ++report.containers_removed;
    }
  } else {
    spdlog::warn("janitor: list containers: {}", list.status().message());
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(deps_.config->workspace_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("job-", 0) != 0 || Executing(name)) continue;
    if (isolation::RemoveTree(entry.path().string()).ok()) ++report.workspaces_removed;
  }
  // Artifact directories of jobs the store no longer knows (a crash between
  // a purge and the removal, or a record purged by an older version).
  for (const auto& entry : std::filesystem::directory_iterator(deps_.config->artifacts.dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("job-", 0) != 0 || Executing(name)) continue;
    auto rec = deps_.store->Get(isolation::OwningJobId(name));
    if (!rec.ok() && rec.status().code() == StatusCode::kNotFound &&
        isolation::RemoveTree(entry.path().string()).ok()) {
      ++report.artifacts_removed;
    }
  }
  int64_t now = NowMs();
  auto purged = deps_.store->PurgeFinishedBefore(now - deps_.config->jobs.retention_s * 1000);
  if (purged.ok()) {
    report.jobs_purged = static_cast<int>(purged->size());
    // Ephemeral artifacts expire with their job.
    for (const auto& id : *purged) {
      (void)isolation::RemoveTree(deps_.config->artifacts.dir + "/" + id);
    }
  } else {
    spdlog::warn("janitor: purge: {}", purged.status().message());
  }
  auto cache = deps_.store->CachePurgeExpired(now);
  if (cache.ok()) report.cache_purged = *cache;
  return report;
}

}  // namespace coderunner::jobs
