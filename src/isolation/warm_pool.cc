#include "coderunner/isolation/warm_pool.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/mechanism.h"
#include "coderunner/isolation/workspace.h"
#include "init_message.h"
#include "prestart.h"

namespace coderunner::isolation {
namespace {

constexpr auto kTick = std::chrono::seconds(1);
constexpr auto kMaxBackoff = std::chrono::seconds(30);

}  // namespace

// What of a job shapes its pooled container: everything BuildCreateBody
// reads when ContainerContext::pooled is set (arguments, stdin and files
// arrive with the job, code is a file). Copies no code or files.
JobSpec WarmPool::TemplateOf(const JobSpec& job, std::string id) {
  JobSpec t;
  t.id = std::move(id);
  t.language = job.language;
  t.limits = job.limits;
  t.runtime = job.runtime;
  // A container whose interpreter preloads is a shape of its own.
  t.preload = job.preload || WantsPreload(job);
  return t;
}

WarmPool::WarmPool(engine::ContainerClient& containers, const ContainerPolicy& policy,
                   UidPool& uids, PoolOptions options, std::string workspace_root,
                   std::string artifacts_root, ArtifactCaps caps, MetricsRegistry* metrics,
                   std::chrono::milliseconds attach_bound)
    : containers_(containers),
      policy_(policy),
      uids_(uids),
      options_(std::move(options)),
      workspace_root_(std::move(workspace_root)),
      artifacts_root_(std::move(artifacts_root)),
      caps_(caps),
      metrics_(metrics),
      attach_bound_(attach_bound),
      token_(NewId("pool")),
      parked_(options_.max_containers, std::chrono::milliseconds(options_.reuse_idle_ms)) {
  if (metrics_ != nullptr) {
    metrics_->DeclareGauge("coderunner_pool_idle", "Warm containers ready, by language.");
    metrics_->DeclareGauge("coderunner_pool_target",
                           "Warm containers wanted (demand-adjusted), by language.");
    metrics_->DeclareGauge("coderunner_pool_filling", "Warm containers being prepared.");
    metrics_->DeclareCounter("coderunner_pool_hits_total",
                             "Jobs that got a warm container, by language.");
    metrics_->DeclareCounter("coderunner_pool_misses_total",
                             "Eligible jobs that found no warm container, by language.");
    metrics_->DeclareCounter("coderunner_pool_created_total", "Warm containers prepared.");
    metrics_->DeclareCounter("coderunner_pool_replaced_total",
                             "Idle warm containers replaced, by reason (died, idle).");
    metrics_->DeclareCounter("coderunner_pool_fill_errors_total",
                             "Failures preparing a warm container.");
    metrics_->DeclareCounter("coderunner_pool_reused_total",
                             "Jobs given a container an earlier job of their tenant ran in.");
  }
}

WarmPool::~WarmPool() { Stop(); }

ContainerContext WarmPool::ContextFor(const JobSpec& job, const std::string& workspace,
                                      const OutputMount& output) const {
  ContainerContext ctx{job, workspace, false, output};
  ctx.pooled = true;
  ctx.pool_label = token_;
  return ctx;
}

std::string WarmPool::KeyOf(const JobSpec& job) const {
  JobSpec t = TemplateOf(job, "@slot");
  OutputMount out;
  if (!artifacts_root_.empty()) {
    out = {"@output", false, caps_.max_total_bytes, caps_.max_file_bytes, caps_.max_files, ""};
  }
  ContainerContext ctx = ContextFor(t, "@workspace", out);
  return policy_.BuildCreateBody(ctx).dump();
}

bool WarmPool::Eligible(const JobSpec& job) const {
  // A job with egress starts cold: its proxy is made in its container's
  // network namespace, and init waits for it before the job starts.
  if (!options_.enabled || !job.volume.id.empty() || job.egress) return false;
  const std::string& runtime = policy_.RuntimeOf(job);
  if (!runtime.empty() && runtime != "runc") return false;
  if (!FitsGoMessage(job.args)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  return started_ && !stopping_;
}

void WarmPool::Start(const std::vector<JobSpec>& templates) {
  if (!options_.enabled) return;
  // Slot directories of an earlier process: their containers were removed
  // by recovery (they carried another pool token).
  for (const std::string& root : {workspace_root_, artifacts_root_}) {
    if (root.empty()) continue;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
      std::string name = e.path().filename().string();
      if (name.rfind(std::string(kSlotPrefix) + "-", 0) == 0) (void)RemoveTree(e.path().string());
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (started_) return;
  started_ = true;
  for (const JobSpec& t : templates) {
    auto size = options_.sizes.find(t.language.name);
    int base = size != options_.sizes.end() ? size->second : options_.size;
    if (base <= 0 || policy_.RuntimeOf(t) == "runsc") continue;
    Shape& s = shapes_[KeyOf(t)];
    s.spec = TemplateOf(t, "");
    s.base = std::min(base, options_.max_per_shape);
    s.target = s.base;
    s.last_used = s.last_miss = Clock::now();
  }
  spdlog::info("warm pool {}: {} shape(s), up to {} containers", token_, shapes_.size(),
               options_.max_containers);
  int fillers = std::max(1, options_.fill_parallelism);
  for (int i = 0; i < fillers; ++i) threads_.emplace_back([this] { FillLoop(); });
  threads_.emplace_back([this] { MaintainLoop(); });
  UpdateGauges();
}

void WarmPool::Stop() {
  std::vector<std::unique_ptr<PooledContainer>> left;
  std::vector<std::string> undeleted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || !started_) {
      stopping_ = true;
      reaped_ = true;
      return;
    }
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [key, shape] : shapes_) {
      for (auto& c : shape.idle) left.push_back(std::move(c));
      shape.idle.clear();
    }
    for (auto& c : retired_) left.push_back(std::move(c));
    retired_.clear();
    for (auto& c : parked_.TakeAll()) left.push_back(std::move(c));
    reaped_ = true;
    undeleted.swap(undeleted_);
    UpdateGauges();
  }
  // In parallel: Podman takes a few hundred ms to remove a running
  // container, and shutdown should not take seconds.
  std::mutex left_mu;
  auto drain = [&] {
    for (;;) {
      std::unique_ptr<PooledContainer> c;
      {
        std::lock_guard<std::mutex> lock(left_mu);
        if (left.empty()) return;
        c = std::move(left.back());
        left.pop_back();
      }
      Destroy(std::move(c));
    }
  };
  std::vector<std::thread> removers;
  for (size_t i = 1; i < std::min<size_t>(left.size(), 8); ++i) removers.emplace_back(drain);
  drain();
  for (auto& t : removers) t.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    undeleted.insert(undeleted.end(), unremoved_at_stop_.begin(), unremoved_at_stop_.end());
    unremoved_at_stop_.clear();
  }
  // One more try each; what still fails is left to the next start's
  // recovery (the containers carry this instance's label).
  for (const auto& id : undeleted) (void)containers_.Remove(id);
}

int WarmPool::TotalLocked() const {
  int n = 0;
  for (const auto& [key, s] : shapes_) n += static_cast<int>(s.idle.size()) + s.filling;
  return n + parked_.size();
}

std::unique_ptr<PooledContainer> WarmPool::Take(const JobSpec& job) {
  std::string key = KeyOf(job);
  std::vector<std::unique_ptr<PooledContainer>> dead;
  std::unique_ptr<PooledContainer> got;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_ || stopping_) return nullptr;
    if (!job.reuse_scope.empty()) {
      if ((got = TakeParkedLocked(job, key))) return got;
    }
    auto now = Clock::now();
    auto it = shapes_.find(key);
    if (it == shapes_.end()) {
      // A shape not seen yet (other limits, another tier's maxima...):
      // learn it, evicting the least recently used learned shape if full.
      // The configured shapes (base > 0) do not count: there may be more
      // of them than max_shapes, and then nothing could be learned.
      const auto learned = std::count_if(shapes_.begin(), shapes_.end(),
                                         [](const auto& kv) { return kv.second.base == 0; });
      if (learned >= options_.max_shapes) {
        auto lru = shapes_.end();
        for (auto s = shapes_.begin(); s != shapes_.end(); ++s) {
          if (s->second.base > 0 || s->second.filling > 0) continue;
          if (lru == shapes_.end() || s->second.last_used < lru->second.last_used) lru = s;
        }
        if (lru == shapes_.end()) {
          ++stats_.misses;
          return nullptr;
        }
        for (auto& c : lru->second.idle) retired_.push_back(std::move(c));
        shapes_.erase(lru);
      }
      Shape& s = shapes_[key];
      s.spec = TemplateOf(job, "");
      s.target = 1;
      s.last_used = s.last_miss = now;
      ++stats_.misses;
      if (metrics_ != nullptr) {
        metrics_->Increment("coderunner_pool_misses_total", {{"language", job.language.name}});
      }
      UpdateGauges();
      cv_.notify_all();
      return nullptr;
    }
    Shape& s = it->second;
    s.last_used = now;
    while (!s.idle.empty() && !got) {
      std::unique_ptr<PooledContainer> c = std::move(s.idle.front());
      s.idle.pop_front();
      if (c->attach->done()) {
        ++stats_.replaced_dead;
        if (metrics_ != nullptr) {
          metrics_->Increment("coderunner_pool_replaced_total", {{"reason", "died"}});
        }
        retired_.push_back(std::move(c));
      } else {
        got = std::move(c);
      }
    }
    if (got) {
      ++stats_.hits;
    } else {
      ++stats_.misses;
      s.target = std::min(s.target + 1, std::max(options_.max_per_shape, s.base));
      s.last_miss = now;
    }
    if (metrics_ != nullptr) {
      metrics_->Increment(got ? "coderunner_pool_hits_total" : "coderunner_pool_misses_total",
                          {{"language", job.language.name}});
    }
    UpdateGauges();
  }
  cv_.notify_all();
  return got;
}

std::unique_ptr<PooledContainer> WarmPool::TakeOrPrepare(const JobSpec& job) {
  if (std::unique_ptr<PooledContainer> idle = Take(job)) return idle;
  if (!Eligible(job)) return nullptr;
  auto made = Prepare(TemplateOf(job, ""));
  if (!made.ok()) {
    spdlog::warn("pool: prepare a container for a series: {}", made.status().ToString());
    return nullptr;
  }
  return std::move(*made);
}

void WarmPool::Retire(std::unique_ptr<PooledContainer> container) {
  if (!container) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!reaped_) {
      retired_.push_back(std::move(container));
      cv_.notify_all();
      return;
    }
  }
  Destroy(std::move(container));  // Stopped: nobody else will.
}

bool WarmPool::Owns(const std::map<std::string, std::string>& labels) const {
  auto it = labels.find(kLabelPool);
  return it != labels.end() && it->second == token_;
}

WarmPool::Stats WarmPool::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.shapes = static_cast<int>(shapes_.size());
  s.parked = parked_.size();
  for (const auto& [key, shape] : shapes_) {
    s.idle += static_cast<int>(shape.idle.size());
    s.filling += shape.filling;
    s.target += shape.target;
  }
  return s;
}

void WarmPool::UpdateGauges() {
  if (metrics_ == nullptr) return;
  std::map<std::string, std::pair<int, int>> by_language;  // idle, target
  int filling = 0;
  for (const auto& [key, s] : shapes_) {
    auto& v = by_language[s.spec.language.name];
    v.first += static_cast<int>(s.idle.size());
    v.second += s.target;
    filling += s.filling;
  }
  for (const auto& [language, v] : by_language) {
    metrics_->Set("coderunner_pool_idle", {{"language", language}}, v.first);
    metrics_->Set("coderunner_pool_target", {{"language", language}}, v.second);
  }
  metrics_->Set("coderunner_pool_filling", {}, filling);
}

void WarmPool::FillLoop() {
  auto backoff = std::chrono::milliseconds(500);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    // Removing used containers first frees what new ones need.
    if (!retired_.empty()) {
      std::unique_ptr<PooledContainer> c = std::move(retired_.front());
      retired_.pop_front();
      lock.unlock();
      Destroy(std::move(c));
      lock.lock();
      continue;
    }
    // The shape furthest below its target.
    Shape* want = nullptr;
    std::string want_key;
    int deficit = 0;
    if (TotalLocked() >= options_.max_containers) MakeRoomLocked();
    if (TotalLocked() < options_.max_containers) {
      for (auto& [key, s] : shapes_) {
        int d = s.target - static_cast<int>(s.idle.size()) - s.filling;
        if (d > deficit) {
          deficit = d;
          want = &s;
          want_key = key;
        }
      }
    }
    if (want == nullptr) {
      cv_.wait(lock);
      continue;
    }
    ++want->filling;
    JobSpec spec = want->spec;
    UpdateGauges();
    lock.unlock();
    auto prepared = Prepare(spec);
    lock.lock();
    auto it = shapes_.find(want_key);
    if (it != shapes_.end()) --it->second.filling;
    if (prepared.ok()) {
      backoff = std::chrono::milliseconds(500);
      ++stats_.created;
      if (metrics_ != nullptr) metrics_->Increment("coderunner_pool_created_total");
      if (it != shapes_.end() && !stopping_) {
        it->second.idle.push_back(std::move(*prepared));
      } else {
        retired_.push_back(std::move(*prepared));
      }
    } else {
      ++stats_.fill_errors;
      if (metrics_ != nullptr) metrics_->Increment("coderunner_pool_fill_errors_total");
      if (prepared.status().reason() == kReasonPolicyNotApplied) ++stats_.rejected_policy;
      spdlog::warn("pool: preparing a {} container failed (retrying in {} ms): {}",
                   spec.language.name, backoff.count(), prepared.status().ToString());
      // An engine that is down or broken must not be hammered.
      cv_.wait_for(lock, backoff, [&] { return stopping_; });
      backoff = std::min<std::chrono::milliseconds>(backoff * 2, kMaxBackoff);
    }
    UpdateGauges();
  }
}

void WarmPool::MakeRoomLocked() {
  // The shape that missed last, still short of its target.
  const Shape* wanting = nullptr;
  for (const auto& [key, s] : shapes_) {
    const bool short_of = s.target > static_cast<int>(s.idle.size()) + s.filling;
    if (short_of && (wanting == nullptr || s.last_miss > wanting->last_miss)) wanting = &s;
  }
  if (wanting == nullptr) return;
  // An idle container of the shape used least recently, before that miss.
  Shape* spare = nullptr;
  for (auto& [key, s] : shapes_) {
    if (&s == wanting || s.idle.empty() || s.last_used >= wanting->last_miss) continue;
    if (spare == nullptr || s.last_used < spare->last_used) spare = &s;
  }
  if (spare == nullptr) return;
  retired_.push_back(std::move(spare->idle.front()));
  spare->idle.pop_front();
  // It gets its place back with its next miss.
  spare->target = std::min(spare->target, static_cast<int>(spare->idle.size()) + spare->filling);
}

void WarmPool::MaintainLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, kTick, [&] { return stopping_; });
    if (stopping_) break;
    auto now = Clock::now();
    auto max_idle = std::chrono::seconds(options_.max_idle_s);
    auto shape_idle = std::chrono::seconds(options_.shape_idle_s);
    for (auto it = shapes_.begin(); it != shapes_.end();) {
      Shape& s = it->second;
      for (auto c = s.idle.begin(); c != s.idle.end();) {
        const char* reason = nullptr;
        if ((*c)->attach->done()) {
          reason = "died";
          ++stats_.replaced_dead;
        } else if (now - (*c)->ready_at > max_idle) {
          reason = "idle";
          ++stats_.replaced_idle;
        }
        if (reason == nullptr) {
          ++c;
          continue;
        }
        if (metrics_ != nullptr) {
          metrics_->Increment("coderunner_pool_replaced_total", {{"reason", reason}});
        }
        retired_.push_back(std::move(*c));
        c = s.idle.erase(c);
      }
      // Demand fades: a raised target steps back toward the configured size.
      if (s.target > s.base && now - s.last_miss > shape_idle) {
        --s.target;
        s.last_miss = now;
        if (s.base == 0 && now - s.last_used > shape_idle) s.target = 0;
      }
      if (s.base == 0 && s.target == 0 && s.filling == 0) {
        for (auto& c : s.idle) retired_.push_back(std::move(c));
        it = shapes_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto& c : parked_.Expire(now)) retired_.push_back(std::move(c));
    // Surplus idle containers (the target fell) go too.
    for (auto& [key, s] : shapes_) {
      while (static_cast<int>(s.idle.size()) > s.target) {
        retired_.push_back(std::move(s.idle.back()));
        s.idle.pop_back();
      }
    }
    UpdateGauges();
    if (!retired_.empty()) cv_.notify_all();
    // Containers the engine could not remove earlier.
    if (!undeleted_.empty()) {
      std::vector<std::string> ids;
      ids.swap(undeleted_);
      lock.unlock();
      std::vector<std::string> still;
      for (const auto& id : ids) {
        Status removed = containers_.Remove(id);
        if (removed.code() == StatusCode::kUnavailable) still.push_back(id);
      }
      lock.lock();
      undeleted_.insert(undeleted_.end(), still.begin(), still.end());
    }
  }
}

}  // namespace coderunner::isolation
