// FinalRecords: the final job records that /events streams are sending,
// shared between the streams of one job.
#ifndef CODERUNNER_API_FINAL_RECORDS_H_
#define CODERUNNER_API_FINAL_RECORDS_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "coderunner/common/status.h"
#include "coderunner/store/job_record.h"

namespace coderunner::api {

// The final records that /events streams are sending. A record holds the
// result with up to the output cap per stream, JSON-escaped (up to six
// bytes per byte written): however many streams end at once, a job's
// record is read and held once, and dropped when the last one has sent it.
// Thread-safe.
class FinalRecords {
 public:
  using Fetch = std::function<StatusOr<store::JobRecord>()>;
  // The record of job `id` as `tenant` sees it: the copy a caller still
  // holds, else what `fetch` returns (called under a lock, so that
  // concurrent callers wait for one fetch rather than make their own).
  // Fails as `fetch` does (nothing is kept then). The record lives as long
  // as a caller holds it: hold it only while sending it.
  StatusOr<std::shared_ptr<const store::JobRecord>> Get(const std::string& id,
                                                        const std::string& tenant,
                                                        const Fetch& fetch);

 private:
  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::weak_ptr<const store::JobRecord>> held_;
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_FINAL_RECORDS_H_
