// How a sandbox comes to be: counted against its tenant's tier, then
// given a container, one launched ahead (SandboxPool) when one of its shape
// is ready, else its own.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "coderunner/sandboxes/sandbox_manager.h"
#include "sandbox_pool.h"
#include "wall_clock.h"

namespace coderunner::sandboxes {

void SandboxManager::StartPool() {
  if (config_.sandbox.ready_sandboxes <= 0) return;
  if (!pool_) {
    pool_ = std::make_unique<SandboxPool>(
        config_.sandbox.ready_sandboxes,
        [this](const isolation::JobSpec& spec, const ReplDriver& driver) {
          return LiveSandbox::Launch(containers_, policy_, layout_, spec, driver);
        },
        [this](size_t ready) {
          if (metrics_ != nullptr) {
            metrics_->Set("coderunner_sandboxes_ready", {}, static_cast<double>(ready));
          }
        });
  }
  pool_->Start();
}

Status SandboxManager::Reserve(const auth::Principal& who, const std::shared_ptr<Entry>& e) {
  const config::TierConfig& tier = *who.tier;
  const SandboxRecord& rec = e->record;
  std::lock_guard<std::mutex> lock(mu_);
  int live = 0;
  int64_t memory = 0;
  for (const auto& [other_id, other] : entries_) {
    if (other->gone || other->record.tenant != who.tenant ||
        other->record.state != SandboxState::kRunning) {
      continue;
    }
    ++live;
    memory += other->record.limits.memory_bytes;
  }
  if (live >= tier.max_sandboxes) {
    return ResourceExhaustedError("tenant " + who.tenant + " has " + std::to_string(live) +
                                      " live sandboxes, the maximum of tier " + tier.name +
                                      " (max_sandboxes)",
                                  kReasonSandboxLimit);
  }
  if (memory + rec.limits.memory_bytes > tier.max_sandbox_memory_bytes) {
    return ResourceExhaustedError("the live sandboxes of tenant " + who.tenant + " would hold " +
                                      std::to_string(memory + rec.limits.memory_bytes) +
                                      " bytes of memory, over the " +
                                      std::to_string(tier.max_sandbox_memory_bytes) + " of tier " +
                                      tier.name + " (max_sandbox_memory_bytes)",
                                  kReasonSandboxLimit);
  }
  entries_[rec.id] = e;
  return OkStatus();
}

StatusOr<SandboxRecord> SandboxManager::Create(const auth::Principal& who, SandboxCreateSpec req) {
  if (who.tier == nullptr) return InternalError("no tier for tenant " + who.tenant);
  const config::TierConfig& tier = *who.tier;
  auto e = std::make_shared<Entry>();
  CR_ASSIGN_OR_RETURN(e->driver, DriverFor(req.spec.language));
  if (policy_.RuntimeOf(req.spec) == "runsc") {
    return FailedPreconditionError(
        "sandboxes cannot run under gVisor (runsc) yet: the call channel is a FIFO in a bind "
        "mount, which gVisor's gofer does not pass through",
        "sandbox_runtime_unsupported");
  }
  e->spec = req.spec;
  e->spec.language.command = e->driver.command;
  // A volume of the tenant's (403 on a tier without volumes, 404 otherwise).
  CR_ASSIGN_OR_RETURN(e->volume_dir, ResolveVolume(who.tenant, &tier, &e->spec));
  // The container lives for the whole TTL: RLIMIT_CPU must not end it (a
  // call's wall timeout bounds each call instead).
  e->spec.limits.cpu_ms = std::max<int64_t>(e->spec.limits.cpu_ms, req.ttl_s * 1000 * 4);
  std::unique_ptr<LiveSandbox> ready;
  // One launched ahead has no proxy of its own (egress is made per
  // container, at its start).
  if (pool_ && !req.fixed_id && e->spec.volume.id.empty() && !e->spec.egress) {
    ready = pool_->Take(e->spec, e->driver);
    if (ready) e->spec = ready->spec();  // Its id too.
  }
  const std::string id = e->spec.id;
  e->record = RecordOf(who, req, e->spec, NowMs());
  SandboxRecord& rec = e->record;
  Status reserved = Reserve(who, e);
  if (!reserved.ok()) {
    if (ready) pool_->GiveBack(std::move(ready));
    return reserved;
  }
  std::unique_lock<std::timed_mutex> call(e->call_mu);
  if (metrics_ != nullptr) {
    metrics_->Increment("coderunner_sandboxes_created_total",
                        {{"from", ready ? "launched_ahead" : "launched"}});
  }
  if (ready) {
    e->live = std::move(ready);
  } else {
    auto live =
        LiveSandbox::Launch(containers_, policy_, layout_, e->spec, e->driver, e->volume_dir);
    if (!live.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      entries_.erase(id);
      return live.status();
    }
    e->live = std::move(*live);
  }
  SandboxRecord snapshot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    rec.container_id = e->live->container_id();
    e->uid = e->live->uid();
    snapshot = rec;
    UpdateGauges();
  }
  Persist(snapshot);
  spdlog::info("sandbox {} created for tenant {} ({}, ttl {} s)", id, who.tenant, rec.language,
               rec.ttl_s);
  return snapshot;
}

}  // namespace coderunner::sandboxes
