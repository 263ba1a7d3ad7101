// WebhookOutboxLoop: sends the webhooks the store owes (WebhookOutbox). A
// node leases due deliveries, builds each body from the job's record at
// that time (wire::JobToJson, as ever), hands one attempt to the
// WebhookSender (its fairness, bounds, signature and address policy), and
// reports the outcome to the store: delivered, retry with exponential
// backoff, or given up after the sender's `retries`. Private to src/jobs
// (JobService owns it).
#ifndef CODERUNNER_SRC_JOBS_WEBHOOK_OUTBOX_LOOP_H_
#define CODERUNNER_SRC_JOBS_WEBHOOK_OUTBOX_LOOP_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "coderunner/jobs/webhook_sender.h"
#include "coderunner/store/job_store.h"
#include "coderunner/store/webhook_outbox.h"

namespace coderunner::jobs {

// What a WebhookOutboxLoop works with. Non-owning: `store` and `outbox`
// (usually the same object) must outlive `sender`, whose threads report
// outcomes to `outbox`; `sender` must outlive the loop. None may be null.
struct WebhookOutboxLoopDeps {
  store::JobStore* store = nullptr;  // A delivery's body: its job's record.
  store::WebhookOutbox* outbox = nullptr;
  WebhookSender* sender = nullptr;  // retries, first_backoff, timeout, threads.
  std::string node = "";            // Whose leases (config instance); non-empty.
  // How long a claimed delivery is this node's, in ms; past it another node
  // may send it again. 0 (default): (threads + 1) attempt timeouts + 10 s,
  // which covers a claim's wait in the sender and its attempt.
  int64_t lease_ms = 0;
  // How often the loop looks for due deliveries without a Kick (retries,
  // other nodes' deliveries, leases that expired).
  std::chrono::milliseconds poll{1000};
};

// The lease WebhookOutboxLoopDeps::lease_ms 0 stands for, under `options`.
int64_t DefaultDeliveryLeaseMs(const WebhookOptions& options);

// The backoff before attempt `failed` + 1, after `failed` (>= 1) failed
// ones: first_backoff doubled failed - 1 times, at most an hour. In ms.
int64_t DeliveryBackoffMs(const WebhookOptions& options, int failed);

// One thread. Each round claims at most as many deliveries as the sender
// has idle threads (so a claim never waits long in the sender), at most
// max_in_flight_per_tenant of one tenant and none of a tenant that has
// that many in the sender already (so one tenant's hanging receivers never
// hold back another's deliveries), then sleeps until Kick, the earliest
// retry it scheduled, or `poll`. Thread-safe.
class WebhookOutboxLoop {
 public:
  explicit WebhookOutboxLoop(WebhookOutboxLoopDeps deps);
  ~WebhookOutboxLoop();  // Stop().

  // Releases the deliveries still leased to this node's name (an earlier
  // process of it died holding them: WebhookOutbox::ReleaseDeliveries),
  // then starts the thread; a second call does nothing.
  void Start();
  // Stops and joins the thread. Idempotent. Deliveries handed to the
  // sender still report their outcome; those it abandons stay leased in
  // the store until their lease expires (then any node sends them).
  void Stop();
  // Wakes the loop to claim now (a job with a callback just finished here).
  void Kick();

  // One round at `now_ms` (ms since the epoch), for the thread and tests:
  // claims due deliveries and hands them to the sender. Returns how many it
  // handed. Store errors are logged (the next round tries again).
  int RunOnce(int64_t now_ms);

 private:
  // The loop's wake-ups; shared with the sender's outcome callbacks (a
  // finished attempt frees a sender thread: claim again), which may run
  // after the loop is gone.
  struct Waker {
    std::mutex mu;
    std::condition_variable cv;
    bool kicked = false;    // Guarded by mu.
    bool stopping = false;  // Guarded by mu.
    // The earliest retry this node scheduled, ms since the epoch; 0 none.
    int64_t wake_at_ms = 0;  // Guarded by mu.
    void Kick();
    // Wakes the loop at `at_ms` at the latest (a retry becomes due).
    void WakeAt(int64_t at_ms);
  };
  void Loop();

  const WebhookOutboxLoopDeps deps_;
  const int64_t lease_ms_;
  const std::shared_ptr<Waker> waker_;
  std::thread thread_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_SRC_JOBS_WEBHOOK_OUTBOX_LOOP_H_
