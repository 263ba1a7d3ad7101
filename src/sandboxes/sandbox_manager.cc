#include "coderunner/sandboxes/sandbox_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "package_gateway.h"
#include "sandbox_pool.h"
#include "wall_clock.h"

namespace coderunner::sandboxes {
namespace {

// How long an expired or stopped record stays listable.
constexpr int64_t kEndedRetentionMs = 24LL * 3600 * 1000;
// How long a call waits for another call on the same sandbox.
constexpr auto kBusyWait = std::chrono::seconds(30);
// How soon a sandbox the watch stopped is looked at again while a call
// holds it (the call usually settles it itself).
constexpr auto kBreachRetry = std::chrono::milliseconds(100);

}  // namespace

SandboxManager::SandboxManager(const config::Config& config, engine::ContainerClient& containers,
                               const isolation::ContainerPolicy& policy, SandboxStore& store,
                               MetricsRegistry* metrics, SandboxLayout layout,
                               volumes::VolumeService* volumes,
                               packages::PackageInstaller* installer)
    : config_(config),
      containers_(containers),
      policy_(policy),
      store_(store),
      metrics_(metrics),
      layout_(std::move(layout)),
      volumes_(volumes),
      installer_(installer) {
  layout_.on_output_breach = [this](const std::string& id) { OnOutputBreach(id); };
  if (installer_ != nullptr) {
    gateway_ =
        std::make_unique<PackageGateway>([this](const std::string& id, const std::string& ecosystem,
                                                const std::vector<std::string>& names) {
          return GatewayAnswer(id, ecosystem, names);
        });
    layout_.gateway = gateway_.get();
  }
  if (metrics_ != nullptr) {
    metrics_->DeclareGauge("coderunner_sandboxes", "Stateful sandboxes by state.");
    metrics_->DeclareCounter("coderunner_sandbox_executions_total",
                             "Sandbox execute calls by outcome.");
    metrics_->DeclareCounter("coderunner_sandbox_restarts_total",
                             "Sandbox containers replaced (the state was lost).");
    metrics_->DeclareCounter("coderunner_sandboxes_expired_total", "Sandboxes past their TTL.");
    metrics_->DeclareGauge("coderunner_sandboxes_ready",
                           "Sandboxes launched ahead, waiting for a create.");
    metrics_->DeclareCounter("coderunner_sandboxes_created_total",
                             "Sandboxes created, by where their container came from.");
  }
}

SandboxManager::~SandboxManager() {
  Stop();            // Every LiveSandbox is gone: none listens on the gateway.
  gateway_.reset();  // Waits for the requests in service.
}

void SandboxManager::Start() {
  std::vector<SandboxRecord> records = store_.LoadAll();
  auto listed = containers_.List(
      {{isolation::kLabelManaged, "true"}, {isolation::kLabelInstance, config_.instance}});
  int adopted = 0;
  for (auto& rec : records) {
    auto e = std::make_shared<Entry>();
    if (rec.state == SandboxState::kRunning) {
      auto spec = SpecOf(rec, &e->driver);
      Status st = spec.status();
      StatusOr<std::string> volume_dir = std::string();
      if (spec.ok()) {
        e->spec = *spec;
        volume_dir = ResolveVolume(rec.tenant, nullptr, &e->spec);
        st = volume_dir.status();
      }
      if (st.ok()) {
        e->volume_dir = *volume_dir;
        auto live = LiveSandbox::Adopt(containers_, policy_, layout_, e->spec, e->driver,
                                       rec.container_id, e->volume_dir);
        st = live.status();
        if (live.ok()) {
          e->live = std::move(*live);
          e->uid = e->live->uid();
          ++adopted;
        }
      }
      if (!st.ok() && st.code() == StatusCode::kUnavailable) {
        // The engine is away: the first call re-attaches.
        spdlog::warn("sandbox {}: engine unreachable, re-attaching later: {}", rec.id,
                     st.message());
      } else if (!st.ok()) {
        spdlog::warn("sandbox {}: cannot re-attach: {}", rec.id, st.ToString());
        rec.state = SandboxState::kStopped;
        rec.stopped_reason =
            "its container could not be re-attached after a restart: " + st.message();
        rec.ended_at_ms = NowMs();
        Persist(rec);
      }
    }
    e->record = rec;
    // Its packages' layer stays on disk while it lives (taken before any
    // install could make room).
    if (installer_ != nullptr && !rec.package_layer.empty() &&
        rec.state == SandboxState::kRunning) {
      e->package_hold = installer_->Hold(rec.package_layer);
      if (e->package_hold == nullptr) {
        spdlog::warn("sandbox {}: its packages' layer is gone", rec.id);
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    entries_[rec.id] = std::move(e);
  }
  // Sandbox containers of this instance that no running sandbox owns.
  if (listed.ok()) {
    for (const auto& c : *listed) {
      auto label = c.labels.find(isolation::kLabelSandbox);
      if (label == c.labels.end()) continue;
      bool owned = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = entries_.find(label->second);
        owned = it != entries_.end() && it->second->record.state == SandboxState::kRunning &&
                it->second->record.container_id == c.id;
      }
      if (!owned) (void)containers_.Remove(c.id);
    }
  }
  spdlog::info("sandboxes: {} record(s), {} re-attached", records.size(), adopted);
  StartPool();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = false;
    UpdateGauges();
  }
  expiry_ = std::thread([this] { ExpiryLoop(); });
}

void SandboxManager::Stop() {
  if (pool_) pool_->Stop();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !expiry_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (expiry_.joinable()) expiry_.join();
  std::map<std::string, std::shared_ptr<Entry>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all = entries_;
  }
  for (auto& [id, e] : all) {
    std::lock_guard<std::timed_mutex> call(e->call_mu);
    e->live.reset();  // Detach only: the container keeps the state.
  }
}

void SandboxManager::Persist(const SandboxRecord& record) {
  Status s = store_.Put(record);
  if (!s.ok()) spdlog::error("sandbox {}: store: {}", record.id, s.ToString());
}

void SandboxManager::UpdateGauges() {
  if (metrics_ == nullptr) return;
  int counts[3] = {0, 0, 0};
  for (const auto& [id, e] : entries_) ++counts[static_cast<int>(e->record.state)];
  for (SandboxState s : {SandboxState::kRunning, SandboxState::kStopped, SandboxState::kExpired}) {
    metrics_->Set("coderunner_sandboxes", {{"state", std::string(StateName(s))}},
                  counts[static_cast<int>(s)]);
  }
}

StatusOr<std::shared_ptr<SandboxManager::Entry>> SandboxManager::Find(const std::string& tenant,
                                                                      const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second->gone || it->second->record.tenant != tenant) {
    return NotFoundError("no sandbox " + id, kReasonSandboxNotFound);
  }
  return it->second;
}

StatusOr<std::unique_lock<std::timed_mutex>> SandboxManager::LockCall(Entry& e,
                                                                      const std::string& id) {
  std::unique_lock<std::timed_mutex> call(e.call_mu, std::defer_lock);
  if (!call.try_lock_for(kBusyWait)) {
    return FailedPreconditionError("sandbox " + id + " is busy with another call",
                                   kReasonSandboxBusy);
  }
  return call;
}

StatusOr<SandboxRecord> SandboxManager::Get(const std::string& tenant, const std::string& id) {
  CR_ASSIGN_OR_RETURN(std::shared_ptr<Entry> e, Find(tenant, id));
  std::lock_guard<std::mutex> lock(mu_);
  return e->record;
}

std::vector<SandboxRecord> SandboxManager::List(const std::string& tenant,
                                                std::optional<SandboxState> state,
                                                const std::string& language) {
  std::vector<SandboxRecord> out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, e] : entries_) {
      const SandboxRecord& r = e->record;
      if (e->gone || r.tenant != tenant) continue;
      if (state && r.state != *state) continue;
      if (!language.empty() && r.language != language) continue;
      out.push_back(r);
    }
  }
  std::sort(out.begin(), out.end(), [](const SandboxRecord& a, const SandboxRecord& b) {
    return a.created_at_ms != b.created_at_ms ? a.created_at_ms > b.created_at_ms : a.id > b.id;
  });
  return out;
}

Status SandboxManager::ReattachLate(Entry& e) {
  if (e.live != nullptr || e.spec.id.empty()) return OkStatus();
  // Not re-attached at startup (the engine was away): now.
  std::string container_id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    container_id = e.record.container_id;
  }
  auto live = LiveSandbox::Adopt(containers_, policy_, layout_, e.spec, e.driver, container_id,
                                 e.volume_dir);
  if (!live.ok() && live.status().code() == StatusCode::kUnavailable) return live.status();
  std::lock_guard<std::mutex> lock(mu_);
  if (live.ok()) {
    e.live = std::move(*live);
    e.uid = e.live->uid();
  } else if (e.record.state == SandboxState::kRunning) {
    e.record.state = SandboxState::kStopped;
    e.record.stopped_reason =
        "its container could not be re-attached after a restart: " + live.status().message();
    e.record.ended_at_ms = NowMs();
    Persist(e.record);
    UpdateGauges();
  }
  return OkStatus();
}

StatusOr<ExecuteOutcome> SandboxManager::Execute(const auth::Principal& who, const std::string& id,
                                                 const SandboxCallSpec& req) {
  CR_ASSIGN_OR_RETURN(std::shared_ptr<Entry> e, Find(who.tenant, id));
  int64_t timeout_ms = req.timeout_ms.value_or(e->spec.limits.timeout_ms);
  if (who.tier != nullptr && timeout_ms > who.tier->max_timeout_ms) {
    return FailedPreconditionError("timeout_ms " + std::to_string(timeout_ms) +
                                       " exceeds the maximum of tier " + who.tier->name + " (" +
                                       std::to_string(who.tier->max_timeout_ms) + " ms)",
                                   "limit_exceeded");
  }
  if (!e->driver.allows_nul && req.code.find('\0') != std::string::npos) {
    return InvalidArgumentError("code: a bash sandbox cannot run code containing NUL bytes",
                                "invalid_request");
  }
  CR_ASSIGN_OR_RETURN(std::unique_lock<std::timed_mutex> call, LockCall(*e, id));
  CR_RETURN_IF_ERROR(ReattachLate(*e));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (e->gone) return NotFoundError("no sandbox " + id, kReasonSandboxNotFound);
    if (e->record.state != SandboxState::kRunning || e->live == nullptr) {
      return FailedPreconditionError(
          "sandbox " + id + " is " + std::string(StateName(e->record.state)) +
              (e->record.stopped_reason.empty() ? std::string() : ": " + e->record.stopped_reason),
          kReasonSandboxNotRunning);
    }
  }
  ExecuteOutcome out;
  out.result = e->live->Execute(req.files, req.code, timeout_ms, req.on_output);
  const CallResult& r = out.result;
  out.files = e->live->ListOutput();
  out.egress = e->live->DrainEgress();
  // A container that died after the call is replaced by the next one; only
  // a failed replacement stops the sandbox.
  bool dead = e->live->container_id().empty();
  {
    std::lock_guard<std::mutex> lock(mu_);
    SandboxRecord& rec = e->record;
    ++rec.executions;
    rec.last_used_at_ms = NowMs();
    if (r.cpu_ms > 0) rec.cpu_ms_total += r.cpu_ms;
    rec.memory_peak_bytes = std::max(rec.memory_peak_bytes, r.memory_peak_bytes);
    if (r.state_lost) ++rec.restarts;
    rec.container_id = e->live->container_id();
    if (dead) {
      rec.state = SandboxState::kStopped;
      rec.stopped_reason = "its container could not be restarted: " +
                           (r.error.ok() ? std::string("unknown error") : r.error.message());
      rec.ended_at_ms = rec.last_used_at_ms;
    }
    out.record = rec;
    UpdateGauges();
  }
  if (dead) (void)e->live->Destroy();
  Persist(out.record);
  if (metrics_ != nullptr) {
    metrics_->Increment("coderunner_sandbox_executions_total",
                        {{"status", std::string(isolation::RunStatusName(r.status))}});
    if (r.state_lost) metrics_->Increment("coderunner_sandbox_restarts_total");
  }
  return out;
}

Status SandboxManager::Delete(const std::string& tenant, const std::string& id) {
  CR_ASSIGN_OR_RETURN(std::shared_ptr<Entry> e, Find(tenant, id));
  CR_ASSIGN_OR_RETURN(std::unique_lock<std::timed_mutex> call, LockCall(*e, id));
  if (e->live != nullptr) {
    CR_RETURN_IF_ERROR(e->live->Destroy());
    e->live.reset();
  }
  CR_RETURN_IF_ERROR(store_.Delete(id));
  std::lock_guard<std::mutex> lock(mu_);
  e->gone = true;
  entries_.erase(id);
  UpdateGauges();
  return OkStatus();
}

StatusOr<isolation::UniqueFd> SandboxManager::OpenFile(const std::string& tenant,
                                                       const std::string& id,
                                                       const std::string& path) {
  CR_ASSIGN_OR_RETURN(std::shared_ptr<Entry> e, Find(tenant, id));
  CR_ASSIGN_OR_RETURN(std::unique_lock<std::timed_mutex> call, LockCall(*e, id));
  if (e->live == nullptr) return NotFoundError("no such file", "file_not_found");
  return e->live->OpenOutputFile(path);
}

StatusOr<std::vector<isolation::Artifact>> SandboxManager::Files(const std::string& tenant,
                                                                 const std::string& id) {
  CR_ASSIGN_OR_RETURN(std::shared_ptr<Entry> e, Find(tenant, id));
  CR_ASSIGN_OR_RETURN(std::unique_lock<std::timed_mutex> call, LockCall(*e, id));
  if (e->live == nullptr) return std::vector<isolation::Artifact>{};
  return e->live->ListOutput();
}

int SandboxManager::ExpireDue(int64_t now_ms) {
  std::vector<std::shared_ptr<Entry>> due;
  std::vector<std::string> forget;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, e] : entries_) {
      const SandboxRecord& r = e->record;
      if (r.state == SandboxState::kRunning && r.expires_at_ms() <= now_ms) due.push_back(e);
      if (r.state != SandboxState::kRunning && r.ended_at_ms + kEndedRetentionMs <= now_ms) {
        forget.push_back(id);
      }
    }
  }
  int expired = 0;
  for (auto& e : due) {
    // A sandbox in a call is in use: its TTL restarts when the call ends.
    std::unique_lock<std::timed_mutex> call(e->call_mu, std::try_to_lock);
    if (!call.owns_lock()) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (e->gone || e->record.state != SandboxState::kRunning ||
          e->record.expires_at_ms() > now_ms) {
        continue;
      }
    }
    if (e->live != nullptr) {
      Status s = e->live->Destroy();
      if (!s.ok()) {
        spdlog::warn("sandbox {}: expire: {}", e->record.id, s.ToString());
        continue;  // The engine is away: try again on the next pass.
      }
      e->live.reset();
    }
    SandboxRecord snapshot;
    {
      std::lock_guard<std::mutex> lock(mu_);
      e->record.state = SandboxState::kExpired;
      e->record.ended_at_ms = now_ms;
      e->record.container_id.clear();
      e->package_hold.reset();  // Its layer may go to make room.
      snapshot = e->record;
      UpdateGauges();
    }
    Persist(snapshot);
    spdlog::info("sandbox {} expired (idle for {} s)", snapshot.id, snapshot.ttl_s);
    if (metrics_ != nullptr) metrics_->Increment("coderunner_sandboxes_expired_total");
    ++expired;
  }
  for (const auto& id : forget) {
    (void)store_.Delete(id);
    std::lock_guard<std::mutex> lock(mu_);
    entries_.erase(id);
    UpdateGauges();
  }
  return expired;
}

void SandboxManager::ExpiryLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  bool waiting = false;  // A stopped sandbox is held by a call: look again soon.
  while (!stopping_) {
    // Once a second (a TTL is whole seconds), and at once when the watch
    // stopped a sandbox's container.
    cv_.wait_for(lock, waiting ? kBreachRetry : std::chrono::milliseconds(1000),
                 [&] { return stopping_ || (!waiting && !breached_.empty()); });
    if (stopping_) break;
    lock.unlock();
    waiting = !SettleBreaches();
    ExpireDue(NowMs());
    lock.lock();
  }
}

}  // namespace coderunner::sandboxes
