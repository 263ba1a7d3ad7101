// WebhookSender: POSTs finished job records to their callback URLs.
#ifndef CODERUNNER_JOBS_WEBHOOK_SENDER_H_
#define CODERUNNER_JOBS_WEBHOOK_SENDER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/jobs/tenant_fair_queue.h"

namespace coderunner::jobs {

struct WebhookOptions {
  // Allow callbacks to the addresses the outbound policy refuses
  // (coderunner/common/address_policy.h: loopback, link-local, private,
  // unspecified, reserved and the IPv6 forms of those). Default false.
  // Checked on the literal host at validation AND on the address actually
  // connected to (so DNS cannot smuggle one in).
  bool allow_private = false;
  int retries = 3;                               // After the first attempt.
  std::chrono::milliseconds first_backoff{500};  // Doubles per retry.
  std::chrono::milliseconds timeout{10000};      // Per attempt.
  size_t max_pending = 10000;                    // All tenants' waiting deliveries; beyond, drop.
  size_t max_pending_per_tenant = 1000;          // One tenant's waiting deliveries; beyond, drop.
  // One tenant's deliveries being sent at once (each holds a thread through
  // its attempts and backoffs). Keep it below `threads`, so that a tenant
  // whose receivers hang never holds every thread.
  int max_in_flight_per_tenant = 1;
  int threads = 4;  // Delivery threads.
  // The service's webhook secret (LoadWebhookSecret); each tenant's
  // deliveries are signed under WebhookTenantKey(secret, tenant). "" sends
  // them unsigned (tests only).
  std::string secret;
};

// Checks that `url` is an absolute http:// or https:// URL with a host, no
// user-info, at most 2048 bytes, and (unless allow_private) that a literal IP
// host is not in a refused range and the host is not "localhost".
// InvalidArgument (reason "invalid_callback_url") otherwise. Pure.
Status ValidateCallbackUrl(std::string_view url, bool allow_private);

// Delivery runs on its own threads, so Enqueue never blocks a worker. A
// delivery succeeds on any 2xx answer; otherwise it is retried `retries`
// times with exponential backoff, then given up (logged once, counted).
// Every attempt carries kWebhookSignatureHeader (webhook_signature.h),
// signed at the time of that attempt.
//
// Fair between tenants: each tenant's deliveries wait in a queue of their
// own, served round-robin (TenantFairQueue), with at most
// max_in_flight_per_tenant of them being sent at once; so a tenant whose
// receivers are slow or never answer delays only its own deliveries.
//
// Thread-safe. The destructor stops the threads, abandoning pending
// deliveries after the ones in flight.
class WebhookSender {
 public:
  explicit WebhookSender(WebhookOptions options);
  ~WebhookSender();
  WebhookSender(const WebhookSender&) = delete;
  WebhookSender& operator=(const WebhookSender&) = delete;

  // Queues a POST of `json_body` (Content-Type: application/json) to `url`
  // on behalf of `tenant` (whose key signs it). Returns false (and counts a
  // drop) if the tenant's queue or the whole queue is full.
  bool Enqueue(const std::string& tenant, std::string url, std::string json_body);

  // What one attempt of an EnqueueAttempt delivery came to.
  struct AttemptOutcome {
    bool delivered = false;  // A 2xx answer.
    // false when another attempt cannot help (a malformed URL, an address
    // the policy refuses).
    bool retryable = true;
    std::string error;  // Why it failed; "" when delivered.
  };
  // Told the outcome, on the delivery thread, once the attempt is done;
  // returns true when the delivery is given up (counted as failed). Must
  // not throw.
  using AttemptDone = std::function<bool(const AttemptOutcome&)>;

  // Queues ONE attempt of a POST as Enqueue does (same queues, fairness,
  // in-flight bounds and signature), whose retries are the caller's
  // business (the webhook outbox: WebhookOutboxLoop), then calls `done`. A
  // delivery is counted as delivered on a 2xx, as failed when `done` says
  // it gave up. Returns false when the tenant's queue or the whole queue is
  // full or the sender is stopping (not counted: the caller keeps the
  // delivery); `done` is then never called.
  bool EnqueueAttempt(const std::string& tenant, std::string url, std::string json_body,
                      AttemptDone done);

  // Deliveries waiting or being sent now (all tenants).
  size_t backlog() const;
  // The tenants that have max_in_flight_per_tenant deliveries waiting or
  // being sent already (another would only wait), by name.
  std::vector<std::string> SaturatedTenants() const;
  // The options it was built with.
  const WebhookOptions& options() const { return options_; }

  struct Stats {
    uint64_t delivered = 0;
    uint64_t failed = 0;   // Gave up after all retries.
    uint64_t dropped = 0;  // Queue full.
    // Deliveries sleeping out a backoff now (a test knows from it that a
    // stop has to end a backoff, not arrive between attempts).
    uint64_t backing_off = 0;
  };
  Stats stats() const;

  // Waits until the queue is empty and nothing is in flight, or `timeout`.
  // Returns true if idle. For tests and shutdown.
  bool WaitIdle(std::chrono::milliseconds timeout);

 private:
  struct Delivery {
    std::string url;
    std::string body;
    AttemptDone done;  // Set: one attempt, then done (EnqueueAttempt).
  };
  void Loop();
  // Returns true if delivered.
  bool DeliverOnce(const std::string& tenant, const Delivery& d);
  // One signed attempt of `d` (the URL's form checked first).
  AttemptOutcome SignedAttempt(const std::string& tenant, const Delivery& d) const;
  bool Push(const std::string& tenant, Delivery d);

  WebhookOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  TenantFairQueue<Delivery> queue_;  // Guarded by mu_.
  bool stopping_ = false;
  Stats stats_;
  std::vector<std::thread> threads_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_WEBHOOK_SENDER_H_
