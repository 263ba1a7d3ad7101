// The listener thread of PgJobNotices: one session of its own that LISTENs
// on kJobNoticesChannel and hands each notice to a callback. Internal to
// src/store.
#ifndef CODERUNNER_SRC_STORE_POSTGRES_PG_NOTICE_LISTENER_H_
#define CODERUNNER_SRC_STORE_POSTGRES_PG_NOTICE_LISTENER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "coderunner/common/status.h"
#include "coderunner/store/job_notices.h"
#include "coderunner/store/postgres/pg_job_store.h"
#include "pg_connection.h"

namespace coderunner::store {

// Pause before the first reconnect attempt, doubled after each failed one
// up to the maximum, in milliseconds.
inline constexpr int kListenFirstBackoffMs = 100;
inline constexpr int kListenMaxBackoffMs = 2000;

class PgNoticeListener {
 public:
  // `options` as PgJobNotices::Open took them. Callbacks as for
  // JobNotices::Start; both must be callable.
  PgNoticeListener(PgStoreOptions options, std::function<void(const JobNotice&)> on_notice,
                   std::function<void()> on_resync);
  // Stops (see Stop).
  ~PgNoticeListener();
  PgNoticeListener(const PgNoticeListener&) = delete;
  PgNoticeListener& operator=(const PgNoticeListener&) = delete;

  // Tries once to connect and LISTEN (blocking up to connect_timeout_ms),
  // then starts the thread, which retries in the background if that
  // failed. Internal ("store_error") only if the wake-up eventfd cannot be
  // made. Call once.
  Status Start();
  // Wakes the thread and joins it; no callback runs after it returns.
  // Idempotent. Not from a callback (it would join its own thread).
  void Stop();

 private:
  // Connects and LISTENs into conn_ (left null on failure).
  Status Subscribe();
  // The thread: keeps a subscription up and delivers what it hears.
  void Loop();
  // Waits up to `timeout_ms` (-1: no bound) for Stop, and for conn_'s
  // socket to be readable when conn_ is set; true if Stop woke it.
  bool WaitForStop(int timeout_ms);
  // Reads what the server sent (conn_ set; its socket readable): delivers
  // the notices, and drops conn_ if the session is lost.
  void Receive();
  // Delivers the notices libpq holds for conn_, in order, until Stop.
  void Deliver();

  const PgStoreOptions options_;
  const std::function<void(const JobNotice&)> on_notice_;
  const std::function<void()> on_resync_;
  int wake_fd_ = -1;  // eventfd, written by Stop.
  std::atomic<bool> stopping_{false};
  bool warned_ = false;                 // Logged that it cannot connect, since it last could.
  std::unique_ptr<PgConnection> conn_;  // Used by Start, then only by the thread.
  std::thread thread_;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_POSTGRES_PG_NOTICE_LISTENER_H_
