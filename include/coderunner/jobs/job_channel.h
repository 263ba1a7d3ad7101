// JobChannel and JobHub: the in-memory side of jobs that are not finished.
//
// Every queued or running job has a JobChannel from acceptance until it is
// terminal. It carries what must not wait on the database: wake-ups for
// /wait and /v1/execute (a condition variable, no polling), the live event
// log for /events, the cancel token, and the raw (unredacted) result for the
// caller of /v1/execute. Memory per channel is bounded by the job's output
// cap per stream.
#ifndef CODERUNNER_JOBS_JOB_CHANNEL_H_
#define CODERUNNER_JOBS_JOB_CHANNEL_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/jobs/job_record.h"
#include "coderunner/sandbox/cancel_token.h"

namespace coderunner::jobs {

struct JobEvent {
  enum class Kind { kStatus, kStdout, kStderr, kStage };
  Kind kind;
  std::string data;  // Status name, output bytes, or a stage as a JSON object.
};

// Thread-safe.
class JobChannel {
 public:
  explicit JobChannel(int64_t output_cap) : output_cap_(output_cap) {}

  // Appends a status event.
  void PublishStatus(JobStatus status);
  // Appends an Execute-mode stage change: `stage_json` is the stage's JSON
  // object ({"name","status",...}), passed through to /events as is.
  void PublishStage(std::string stage_json);
  // Appends output, dropping whatever exceeds the per-stream cap.
  void PublishOutput(bool is_stderr, std::string_view bytes);
  // Marks the job terminal, keeps `raw_result_json` for /v1/execute and
  // wakes every waiter. Later calls are ignored.
  void Finish(JobStatus status, std::string raw_result_json);

  // Waits until terminal or `deadline`. Returns true if terminal.
  bool WaitTerminal(std::chrono::steady_clock::time_point deadline);
  // Waits until there are events past `next` or the job is terminal, or
  // `deadline`. Copies events [next, end) into `out` and returns the new
  // `next`.
  size_t WaitEvents(size_t next, std::chrono::steady_clock::time_point deadline,
                    std::vector<JobEvent>* out, bool* terminal);

  bool terminal() const;
  // The raw result once terminal (empty if it was finished without one).
  std::string raw_result_json() const;
  sandbox::CancelToken& cancel_token() { return cancel_; }

 private:
  int64_t output_cap_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<JobEvent> events_;
  int64_t stdout_bytes_ = 0;
  int64_t stderr_bytes_ = 0;
  bool terminal_ = false;
  std::string raw_result_json_;
  sandbox::CancelToken cancel_;
};

// The channels of all non-terminal jobs. Thread-safe.
class JobHub {
 public:
  // Creates the channel for a newly accepted (or recovered) job.
  std::shared_ptr<JobChannel> Open(const std::string& id, int64_t output_cap);
  // The channel, or nullptr if the job is terminal (or unknown).
  std::shared_ptr<JobChannel> Find(const std::string& id) const;
  // Finishes the channel (see JobChannel::Finish) and forgets it.
  void Finish(const std::string& id, JobStatus status, std::string raw_result_json);
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<JobChannel>> channels_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_JOB_CHANNEL_H_
