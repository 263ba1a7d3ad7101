#include "webhook_outbox_loop.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "coderunner/jobs/job_clock.h"
#include "coderunner/wire/job_json.h"

namespace coderunner::jobs {
namespace {

constexpr int64_t kLeaseSlackMs = 10000;
constexpr int64_t kMaxBackoffMs = int64_t{60} * 60 * 1000;

// What one delivery's outcome callback needs; copied into it, so that it
// outlives the loop.
struct Reporter {
  store::WebhookOutbox* outbox;
  std::string node;
  WebhookOptions options;
  store::WebhookDelivery delivery;
};

// Reports `outcome` of `r.delivery`'s attempt to the store; returns true
// when it gave the delivery up. Sets `retry_at_ms` when it is due again.
bool Report(const Reporter& r, const WebhookSender::AttemptOutcome& outcome, int64_t& retry_at_ms) {
  const store::WebhookDelivery& d = r.delivery;
  if (outcome.delivered) {
    Status done = r.outbox->Delivered(d.job_id, r.node);
    if (!done.ok()) spdlog::warn("webhook of job {}: sent, but {}", d.job_id, done.ToString());
    return false;
  }
  const int failed = d.attempts + 1;
  if (!outcome.retryable || failed > std::max(0, r.options.retries)) {
    Status gone = r.outbox->GiveUp(d.job_id, r.node);
    if (!gone.ok()) {
      spdlog::warn("webhook of job {}: cannot give up: {}", d.job_id, gone.ToString());
      return false;
    }
    spdlog::warn("webhook of job {}: giving up after {} attempt(s): {}", d.job_id, failed,
                 outcome.error);
    return true;
  }
  const int64_t next_at = NowMs() + DeliveryBackoffMs(r.options, failed);
  Status retry = r.outbox->Retry(d.job_id, r.node, next_at, outcome.error);
  if (!retry.ok()) {
    spdlog::warn("webhook of job {}: {}", d.job_id, retry.ToString());
  } else {
    retry_at_ms = next_at;
  }
  return false;
}

}  // namespace

int64_t DefaultDeliveryLeaseMs(const WebhookOptions& options) {
  const int64_t threads = std::max(1, options.threads);
  return std::min((threads + 1) * options.timeout.count() + kLeaseSlackMs,
                  store::kMaxDeliveryLeaseMs);
}

int64_t DeliveryBackoffMs(const WebhookOptions& options, int failed) {
  int64_t backoff = std::max<int64_t>(1, options.first_backoff.count());
  for (int i = 1; i < failed && backoff < kMaxBackoffMs; ++i) backoff *= 2;
  return std::min(backoff, kMaxBackoffMs);
}

void WebhookOutboxLoop::Waker::Kick() {
  {
    std::lock_guard<std::mutex> lock(mu);
    kicked = true;
  }
  cv.notify_all();
}

void WebhookOutboxLoop::Waker::WakeAt(int64_t at_ms) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (wake_at_ms == 0 || at_ms < wake_at_ms) wake_at_ms = at_ms;
  }
  cv.notify_all();
}

WebhookOutboxLoop::WebhookOutboxLoop(WebhookOutboxLoopDeps deps)
    : deps_(std::move(deps)),
      lease_ms_(deps_.lease_ms > 0 ? deps_.lease_ms
                                   : DefaultDeliveryLeaseMs(deps_.sender->options())),
      waker_(std::make_shared<Waker>()) {}

WebhookOutboxLoop::~WebhookOutboxLoop() { Stop(); }

void WebhookOutboxLoop::Start() {
  {
    std::lock_guard<std::mutex> lock(waker_->mu);
    if (thread_.joinable() || waker_->stopping) return;
  }
  // Leases an earlier process of this node took with it when it died.
  auto released = deps_.outbox->ReleaseDeliveries(deps_.node);
  if (!released.ok()) {
    spdlog::warn("webhooks: cannot release this node's old leases: {}",
                 released.status().ToString());
  } else if (*released > 0) {
    spdlog::info("webhooks: {} delivery lease(s) of an earlier run released", *released);
  }
  std::lock_guard<std::mutex> lock(waker_->mu);
  if (thread_.joinable() || waker_->stopping) return;
  thread_ = std::thread([this] { Loop(); });
}

void WebhookOutboxLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(waker_->mu);
    waker_->stopping = true;
  }
  waker_->cv.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WebhookOutboxLoop::Kick() { waker_->Kick(); }

int WebhookOutboxLoop::RunOnce(int64_t now_ms) {
  WebhookSender& sender = *deps_.sender;
  const int64_t idle =
      std::max(1, sender.options().threads) - static_cast<int64_t>(sender.backlog());
  if (idle <= 0) return 0;
  const int max = static_cast<int>(std::min<int64_t>(idle, store::kMaxClaimDeliveries));
  // Fair between tenants as the sender is: no more of a tenant than it
  // may send at once, none of a tenant that has that many here already
  // (a tenant whose receivers hang holds its own slots, never the claim).
  const int per_tenant =
      std::clamp(sender.options().max_in_flight_per_tenant, 1, store::kMaxClaimDeliveries);
  auto claimed = deps_.outbox->ClaimDeliveries(deps_.node, max, now_ms, lease_ms_, per_tenant,
                                               sender.SaturatedTenants());
  if (!claimed.ok()) {
    spdlog::warn("webhooks: cannot claim deliveries: {}", claimed.status().ToString());
    return 0;
  }
  int handed = 0;
  for (store::WebhookDelivery& d : *claimed) {
    auto job = deps_.store->Get(d.job_id);
    if (!job.ok()) {
      spdlog::warn("webhook of job {}: cannot read the job: {}", d.job_id, job.status().ToString());
      // Purged since: nothing left to send. Else the lease runs out and
      // it is tried again.
      if (job.status().reason() == store::kReasonJobNotFound) {
        (void)deps_.outbox->GiveUp(d.job_id, deps_.node);
      }
      continue;
    }
    std::string tenant = d.tenant;
    std::string url = d.url;
    auto reporter = std::make_shared<Reporter>(
        Reporter{deps_.outbox, deps_.node, sender.options(), std::move(d)});
    auto done = [reporter, waker = waker_](const WebhookSender::AttemptOutcome& outcome) {
      int64_t retry_at_ms = 0;
      bool gave_up = Report(*reporter, outcome, retry_at_ms);
      if (retry_at_ms > 0) waker->WakeAt(retry_at_ms);
      waker->Kick();  // A sender thread is free again.
      return gave_up;
    };
    // Refused (the sender's queues are full): the lease runs out and it is
    // claimed again.
    if (sender.EnqueueAttempt(tenant, std::move(url), wire::JobToJson(*job).dump(), done)) {
      ++handed;
    }
  }
  return handed;
}

void WebhookOutboxLoop::Loop() {
  std::unique_lock<std::mutex> lock(waker_->mu);
  while (!waker_->stopping) {
    waker_->kicked = false;
    if (waker_->wake_at_ms > 0 && waker_->wake_at_ms <= NowMs()) waker_->wake_at_ms = 0;
    lock.unlock();
    RunOnce(NowMs());
    lock.lock();
    auto wait = deps_.poll;
    if (waker_->wake_at_ms > 0) {
      const int64_t until = std::max<int64_t>(0, waker_->wake_at_ms - NowMs());
      wait = std::min(wait, std::chrono::milliseconds(until));
    }
    waker_->cv.wait_for(lock, wait, [&] { return waker_->stopping || waker_->kicked; });
  }
}

}  // namespace coderunner::jobs
