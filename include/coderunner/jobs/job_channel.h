// JobChannel and JobHub: the in-memory side of jobs that are not finished.
//
// Every queued or running job has a JobChannel from acceptance until it is
// terminal. It carries what must not wait on the database: wake-ups for
// /wait and /v1/execute (a condition variable, no polling), the live event
// log for /events, the cancel token, and the raw (unredacted) result for the
// caller of /v1/execute.
//
// The event log is shared by all its readers, and bounded whatever the job
// writes: each stream's output is kept once, up to the job's output cap,
// and the log's entries only mark where a status or stage event, or a
// switch of stream, falls in it. Output that continues the stream of the
// entry before it extends that entry, so a job that writes one byte at a
// time makes one entry, not one per byte, and a job that switches streams
// at every byte makes at most kMaxOutputEntries. Memory per channel is
// therefore at most the output cap per stream plus a fixed amount.
#ifndef CODERUNNER_JOBS_JOB_CHANNEL_H_
#define CODERUNNER_JOBS_JOB_CHANNEL_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/isolation/cancel_token.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/store/job_record.h"

namespace coderunner::jobs {

struct JobEvent {
  enum class Kind { kStatus, kStdout, kStderr, kStage };
  Kind kind;
  std::string data;  // Status name, output bytes, or a stage as a JSON object.
};

// One reader's position in a JobChannel's event log. A new reader starts
// from a default-constructed cursor (the beginning: late readers get the
// whole log). Owned and used by one reader at a time.
struct EventCursor {
  size_t entry = 0;          // First log entry not yet read to its end.
  int64_t read[2] = {0, 0};  // Stdout, stderr bytes already read.
};

// Thread-safe.
class JobChannel {
 public:
  // Log entries that output may open, counted over both streams. Past it,
  // output extends the last entry whatever its stream: the bytes all
  // arrive, but stdout and stderr are no longer interleaved more finely
  // than that entry (a reader gets its stdout, then its stderr). Entries
  // are 32 bytes: 128 KiB at most.
  static constexpr size_t kMaxOutputEntries = 4096;

  // `output_cap`: bytes of each stream kept (and shown); beyond, dropped.
  explicit JobChannel(int64_t output_cap) : output_cap_(output_cap) {}

  // Appends a status event.
  void PublishStatus(store::JobStatus status);
  // Appends an Execute-mode stage change: `stage_json` is the stage's JSON
  // object ({"name","status",...}), passed through to /events as is.
  void PublishStage(std::string stage_json);
  // Appends output, dropping whatever exceeds the per-stream cap. O(1)
  // amortized per byte, whatever the size of `bytes`.
  void PublishOutput(bool is_stderr, std::string_view bytes);
  // Output relayed from the node that runs the job: `bytes` hold the
  // stream's bytes from byte `offset`. Appends (as PublishOutput) only the
  // part past what the stream already holds, so a replay is harmless.
  // Returns false, appending nothing, if `offset` lies past the stream's
  // end (bytes in between are missing: the caller asks for a replay);
  // true otherwise, also when the stream is at its cap or the job terminal.
  bool PublishOutputAt(bool is_stderr, int64_t offset, std::string_view bytes);
  // Marks the job terminal, keeps `raw_result_json` for /v1/execute and
  // wakes every waiter. Later calls are ignored.
  void Finish(store::JobStatus status, std::string raw_result_json);

  // Waits until terminal or `deadline`. Returns true if terminal.
  bool WaitTerminal(std::chrono::steady_clock::time_point deadline);
  // Waits until the log holds something past `cursor`, or the job is
  // terminal, or `deadline`. Then appends to `out` what follows `cursor`,
  // in log order, with at most `max_output_bytes` (> 0) of output, and
  // moves `cursor` past it. Output of one stream that follows itself
  // comes as one event, however it was published. Returns true when the
  // job is terminal and `cursor` is at the end of the log: the reader has
  // had every event, and the terminal status was the last.
  bool WaitEvents(EventCursor* cursor, std::chrono::steady_clock::time_point deadline,
                  size_t max_output_bytes, std::vector<JobEvent>* out);

  bool terminal() const;
  // The status the job was finished with (kQueued until terminal).
  store::JobStatus final_status() const;
  // The raw result once terminal (empty if it was finished without one).
  std::string raw_result_json() const;
  // The error of a run that ended in error, set by the executor before
  // Finish, so that a /v1/execute caller reads it as a Status (OK if none).
  void SetRunError(Status error);
  Status run_error() const;
  // The job as built at acceptance, for the worker that runs it, so that
  // the request is not parsed and built again (JobSpecFromRecord does that
  // when there is none: after a restart, or for jobs whose body is not
  // kept in memory while queued). TakePrepared returns it once, then
  // nullptr.
  void SetPrepared(std::unique_ptr<RunnableJob> job);
  std::unique_ptr<RunnableJob> TakePrepared();
  // The job's record as it was stored at acceptance, for the worker that
  // runs it on the single-node path, so that it is not read back from the
  // store (JobExecutor reads it when there is none: after a restart, in a
  // fleet, or for jobs whose record is not kept in memory while queued).
  // TakeAccepted returns it once, then nullopt.
  void SetAccepted(store::JobRecord record);
  std::optional<store::JobRecord> TakeAccepted();
  isolation::CancelToken& cancel_token() { return cancel_; }
  // Entries in the event log (see kMaxOutputEntries); for tests and metrics.
  size_t log_entries() const;
  // Threads blocked in WaitTerminal or WaitEvents now. For tests: a waiter
  // counts here only while it waits on the condition variable (one that
  // finds its answer at once never does), so a test that sees it counted
  // before it publishes or finishes knows the wake-up is what returns it.
  size_t waiters() const;

 private:
  // A point in the log: what each stream had written when it was made,
  // and, for a status or stage, its text.
  struct Entry {
    JobEvent::Kind kind;
    int64_t end[2];   // Stdout, stderr bytes before the end of this entry.
    size_t text = 0;  // Index in texts_ (status and stage entries).
  };
  static bool IsOutput(JobEvent::Kind kind) {
    return kind == JobEvent::Kind::kStdout || kind == JobEvent::Kind::kStderr;
  }
  // Appends output up to the cap (PublishOutput). Holds mu_.
  void AppendOutput(bool is_stderr, std::string_view bytes);
  // Appends a status or stage entry. Holds mu_.
  void AppendText(JobEvent::Kind kind, std::string text);
  // Whether `cursor` has something left to read. Holds mu_.
  bool HasNews(const EventCursor& cursor) const;

  int64_t output_cap_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string output_[2];  // Stdout, stderr as published, each up to the cap.
  std::vector<std::string> texts_;
  std::vector<Entry> entries_;
  size_t output_entries_ = 0;
  size_t waiters_ = 0;  // See waiters().
  bool terminal_ = false;
  store::JobStatus final_status_ = store::JobStatus::kQueued;
  std::string raw_result_json_;
  Status run_error_;
  std::unique_ptr<RunnableJob> prepared_;
  std::optional<store::JobRecord> accepted_;
  isolation::CancelToken cancel_;
};

// The channels of all non-terminal jobs. Thread-safe.
class JobHub {
 public:
  // Creates the channel for a newly accepted (or recovered) job.
  std::shared_ptr<JobChannel> Open(const std::string& id, int64_t output_cap);
  // The channel, or nullptr if the job is terminal (or unknown).
  std::shared_ptr<JobChannel> Find(const std::string& id) const;
  // Finishes the channel (see JobChannel::Finish) and forgets it.
  void Finish(const std::string& id, store::JobStatus status, std::string raw_result_json);
  size_t size() const;
  // The ids of every open channel, in id order (a fleet node's resync).
  std::vector<std::string> Ids() const;

  // How many channels Finish has ended so far: a waiter on several jobs
  // reads it before it looks at them, then sleeps in WaitFinishAfter.
  uint64_t finished() const;
  // Waits until Finish has ended a channel after the one that made
  // finished() == `seen`, or until `deadline`. True when one came.
  bool WaitFinishAfter(uint64_t seen, std::chrono::steady_clock::time_point deadline) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable finished_cv_;
  std::map<std::string, std::shared_ptr<JobChannel>> channels_;
  uint64_t finished_ = 0;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_CHANNEL_H_
