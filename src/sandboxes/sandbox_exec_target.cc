// What E2B's clients reach besides the interpreter: a sandbox's container as
// a place to run processes, and its lifetime set from outside.
#include "coderunner/sandboxes/sandbox_manager.h"
#include "wall_clock.h"

namespace coderunner::sandboxes {

StatusOr<SandboxRecord> SandboxManager::Lookup(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second->gone) {
    return NotFoundError("no sandbox " + id, kReasonSandboxNotFound);
  }
  return it->second->record;
}

StatusOr<ExecTarget> SandboxManager::ExecTargetOf(const std::string& tenant,
                                                  const std::string& id) {
  CR_ASSIGN_OR_RETURN(std::shared_ptr<Entry> e, Find(tenant, id));
  std::lock_guard<std::mutex> lock(mu_);
  const SandboxRecord& rec = e->record;
  if (e->gone || rec.state != SandboxState::kRunning || rec.container_id.empty()) {
    return FailedPreconditionError("sandbox " + id + " is " + std::string(StateName(rec.state)),
                                   kReasonSandboxNotRunning);
  }
  if (e->uid <= 0) {
    // Not re-attached since a restart of the service (the engine was away).
    return UnavailableError("sandbox " + id + " is not re-attached yet; try again",
                            "engine_unavailable");
  }
  e->record.last_used_at_ms = NowMs();
  ExecTarget target;
  target.container_id = rec.container_id;
  target.user = std::to_string(e->uid) + ":" + std::to_string(e->uid);
  target.workspace_dir = layout_.workspace_root + "/" + id;
  target.envs = rec.envs;
  return target;
}

StatusOr<SandboxRecord> SandboxManager::SetTtl(const auth::Principal& who, const std::string& id,
                                               int64_t ttl_s) {
  CR_ASSIGN_OR_RETURN(std::shared_ptr<Entry> e, Find(who.tenant, id));
  if (who.tier != nullptr && ttl_s > who.tier->max_sandbox_ttl_s) {
    return FailedPreconditionError("ttl_s " + std::to_string(ttl_s) +
                                       " exceeds the maximum of tier " + who.tier->name + " (" +
                                       std::to_string(who.tier->max_sandbox_ttl_s) + " s)",
                                   "limit_exceeded");
  }
  SandboxRecord snapshot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    SandboxRecord& rec = e->record;
    if (e->gone || rec.state != SandboxState::kRunning) {
      return FailedPreconditionError("sandbox " + id + " is " + std::string(StateName(rec.state)),
                                     kReasonSandboxNotRunning);
    }
    rec.ttl_s = ttl_s;
    rec.last_used_at_ms = NowMs();
    snapshot = rec;
  }
  Persist(snapshot);
  return snapshot;
}

}  // namespace coderunner::sandboxes
