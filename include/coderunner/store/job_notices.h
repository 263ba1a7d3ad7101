// JobNotices: wake-ups between the nodes of a fleet that share a store.
//
// A node that changes a job tells every node (itself included) through
// Publish; each node's subscriber re-reads what it needs from the store.
// A notice carries no state of its own: the store is the truth, and a
// notice only says "look again". The one exception is live output
// (kWatch, kOutput), which is never stored: a node that follows a job run
// elsewhere asks for it, and the node running the job sends it in chunks. On PostgreSQL this is
// LISTEN/NOTIFY (a notice sent inside no transaction is delivered once committed data is visible to
// the reader); one machine needs none (the in-memory paths wake their waiters directly).
#ifndef CODERUNNER_STORE_JOB_NOTICES_H_
#define CODERUNNER_STORE_JOB_NOTICES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "coderunner/common/status.h"

namespace coderunner::store {

struct JobNotice {
  enum class Kind {
    kQueued,   // Jobs were queued (job_id may be empty): claimers look again.
    kChanged,  // Job `job_id` changed status: its waiters re-read it.
    kCancel,   // Job `job_id` was cancelled: the node running it stops it.
    // A node follows job `job_id`'s live output: the node running it sends
    // all of it (again, from offset 0) as kOutput.
    kWatch,
    // Live output of job `job_id`: `data` is the stream's bytes at byte
    // `offset` (1..kMaxNoticeOutputBytes of them).
    kOutput,
  };
  JobNotice() = default;
  // The kinds other than kOutput need no more (JobNotice{kind, id}).
  JobNotice(Kind k, std::string id) : kind(k), job_id(std::move(id)) {}

  Kind kind = Kind::kChanged;
  std::string job_id;  // At most 128 bytes; empty only for kQueued.
  // kOutput only (ignored and not sent for the other kinds):
  bool is_stderr = false;  // Which stream `data` belongs to.
  int64_t offset = 0;      // Bytes of that stream before `data`; >= 0.
  std::string data;        // Raw output bytes, any values.
};

// The most output bytes one kOutput carries (a payload stays under
// PostgreSQL's 8000-byte NOTIFY limit once base64-encoded).
inline constexpr size_t kMaxNoticeOutputBytes = 5000;

// Reason of an InvalidArgument from a notice codec or a publisher (a bad
// job id or payload), or from opening a JobNotices (bad options).
inline constexpr const char* kReasonInvalidNotice = "invalid_notice";

class JobNotices {
 public:
  virtual ~JobNotices() = default;

  // Sends `notice` to every subscribed node, this one included. Best
  // effort and at most once: a lost notice is made good by the subscriber's
  // `on_resync` and by its own periodic checks. Errors: InvalidArgument for
  // a notice that cannot be sent (job_id too long or of bad bytes),
  // Unavailable (reason "store_unavailable") if the store cannot be
  // reached. Thread-safe.
  virtual Status Publish(const JobNotice& notice) = 0;

  // Starts delivering every notice published from now on to `on_notice`,
  // on a thread of its own, one at a time, in the order received. When the
  // subscription was lost and is back (the server restarted, the network
  // broke), `on_resync` runs on that thread before any further notice:
  // notices in between may be lost, so the subscriber checks everything it
  // waits for against the store. A subscription that cannot be made at
  // once is retried in the background (with `on_resync` once it is up);
  // Start itself fails only if called twice. Both callbacks must not block
  // for long and must not throw.
  virtual Status Start(std::function<void(const JobNotice&)> on_notice,
                       std::function<void()> on_resync) = 0;

  // Stops delivery; no callback runs after it returns. Idempotent; also
  // called by the destructor of an implementation.
  virtual void Stop() = 0;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_JOB_NOTICES_H_
