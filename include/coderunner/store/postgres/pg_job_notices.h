// PgJobNotices: JobNotices (job_notices.h) over PostgreSQL's LISTEN/NOTIFY,
// on the database the fleet's PgJobStore uses.
//
// Every notice goes to one channel (kJobNoticesChannel) as a short text
// payload: "q:" or "q:<id>" (kQueued), "c:<id>" (kChanged), "x:<id>"
// (kCancel), "w:<id>" (kWatch), "o:<o|e>:<offset>:<base64>:<id>" (kOutput). A job id is 1..128
// bytes of printable ASCII without space (0x21..0x7e; a ':' in it is fine, only the first ':'
// separates). Any other payload on the channel (another client may NOTIFY anything) is ignored.
#ifndef CODERUNNER_STORE_POSTGRES_PG_JOB_NOTICES_H_
#define CODERUNNER_STORE_POSTGRES_PG_JOB_NOTICES_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "coderunner/store/job_notices.h"
#include "coderunner/store/postgres/pg_job_store.h"

namespace coderunner::store {

class PgConnection;
class PgNoticeListener;

// The channel every node LISTENs on and NOTIFYs.
inline constexpr const char* kJobNoticesChannel = "coderunner_jobs";
// application_name of the listener's and the publisher's sessions (as seen
// in pg_stat_activity), unless the conninfo sets its own.
inline constexpr const char* kJobNoticesListenerApp = "coderunner_jobs_listener";
inline constexpr const char* kJobNoticesPublisherApp = "coderunner_jobs_publisher";

class PgJobNotices : public JobNotices {
 public:
  // Connects the publishing session (conninfo, password and
  // connect_timeout_ms of `options`; max_connections is unused: this holds
  // at most two sessions, one to publish, one to listen once started).
  // Unavailable ("store_unavailable") if the server cannot be reached (the
  // message holds the conninfo redacted, never the password);
  // InvalidArgument ("invalid_notice") if connect_timeout_ms < 100.
  static StatusOr<std::unique_ptr<PgJobNotices>> Open(const PgStoreOptions& options);
  // Stops the listener (see Stop).
  ~PgJobNotices() override;
  PgJobNotices(const PgJobNotices&) = delete;
  PgJobNotices& operator=(const PgJobNotices&) = delete;

  // SELECT pg_notify on the publishing session, outside any transaction.
  // A session the server closed is replaced first (so a restart costs no
  // notice once the server is back). InvalidArgument ("invalid_notice")
  // for a bad job id (empty for kChanged/kCancel, too long, bad bytes);
  // Unavailable ("store_unavailable") if the server cannot be reached or
  // the session broke during the call (the notice may then be lost; it is
  // never sent twice). Thread-safe: calls are serialized on one session.
  Status Publish(const JobNotice& notice) override;

  // Connects a session of its own and LISTENs before returning, so every
  // notice published after Start returns is delivered; if that fails,
  // retries in the background (100 ms doubling to 2 s between attempts)
  // and calls `on_resync` once listening. A lost session is replaced the
  // same way, `on_resync` then running before any further notice. Both
  // callbacks run on the listener thread, never concurrently, and must not
  // call Stop. FailedPrecondition if called before (even after Stop);
  // Internal ("store_error") only if the kernel refuses an eventfd.
  // Thread-safe.
  Status Start(std::function<void(const JobNotice&)> on_notice,
               std::function<void()> on_resync) override;

  // Wakes and joins the listener thread; no callback runs after it
  // returns. Prompt even while the server is down, except while a
  // reconnect attempt waits for an unreachable host (at most
  // connect_timeout_ms). Idempotent; thread-safe.
  void Stop() override;

 private:
  PgJobNotices(PgStoreOptions options, std::unique_ptr<PgConnection> publisher);
  // publisher_, connected and up (replaced if the server closed it).
  StatusOr<PgConnection*> LivePublisher();

  const PgStoreOptions options_;
  std::mutex publish_mu_;
  std::unique_ptr<PgConnection> publisher_;  // Guarded by publish_mu_; null when lost.
  std::mutex listen_mu_;
  bool started_ = false;                        // Guarded by listen_mu_.
  std::unique_ptr<PgNoticeListener> listener_;  // Guarded by listen_mu_.
};

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_POSTGRES_PG_JOB_NOTICES_H_
