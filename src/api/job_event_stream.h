// JobEventStream: one GET /v1/jobs/{id}/events response, written a piece at
// a time.
#ifndef CODERUNNER_API_JOB_EVENT_STREAM_H_
#define CODERUNNER_API_JOB_EVENT_STREAM_H_

#include <httplib.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/jobs/job_channel.h"
#include "coderunner/jobs/job_service.h"
#include "final_records.h"

namespace coderunner::api {

// Not thread-safe: httplib calls one stream's provider from one thread at a
// time. `service` and `finals` must outlive it.
class JobEventStream {
 public:
  // Output bytes one write carries at most, so that a stream holds little
  // at a time whatever the job wrote: JSON can make them six times larger
  // ("\u001e"), and the write is built in a few copies.
  static constexpr size_t kOutputBytesPerWrite = 8 << 10;
  // Largest piece handed to httplib at once (it copies each into a chunk).
  static constexpr size_t kWriteSlice = 64 << 10;

  // `channel`: the job's live channel, or nullptr if it is terminal.
  JobEventStream(jobs::JobService& service, FinalRecords& finals, std::string id,
                 std::string tenant, std::shared_ptr<jobs::JobChannel> channel)
      : service_(service),
        finals_(finals),
        id_(std::move(id)),
        tenant_(std::move(tenant)),
        channel_(std::move(channel)) {}

  // One write: the `state` event first (on its own if the job is live),
  // then what the channel has past this stream's cursor (waiting up to
  // 15 s for it, else a keep-alive), then, once the channel has told
  // everything, the `result` event and the end of the stream. False if the
  // client is gone.
  bool WriteNext(httplib::DataSink& sink);

 private:
  // `events` as Server-Sent Events appended to `out`; output is cut after
  // its last complete UTF-8 character, the rest carried to the next write.
  void AppendEvents(const std::vector<jobs::JobEvent>& events, std::string& out);
  // Writes event `name` with the job's final record (as GET /v1/jobs/{id}
  // has it), shared through finals_; nothing if it cannot be read.
  bool WriteRecordEvent(httplib::DataSink& sink, const char* name);

  jobs::JobService& service_;
  FinalRecords& finals_;
  const std::string id_;
  const std::string tenant_;
  std::shared_ptr<jobs::JobChannel> channel_;
  jobs::EventCursor cursor_;
  bool sent_state_ = false;
  std::string carry_[2];  // Incomplete UTF-8 at the end of stdout/stderr.
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_JOB_EVENT_STREAM_H_
