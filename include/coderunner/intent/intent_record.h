// IntentRecord: the job record of an accepted POST /v1/intents.
#ifndef CODERUNNER_INTENT_INTENT_RECORD_H_
#define CODERUNNER_INTENT_INTENT_RECORD_H_

#include <string>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/intent/intent_request.h"
#include "coderunner/store/job_record.h"

namespace coderunner::intent {

// A new queued job of kind "intent" for `tenant` on `tier` (nullable),
// with a fresh id: its stored request is the normalized `request`
// (IntentRequestToJson, with the tier's name), code_sha256 names the
// intent (the code is the model's, not known yet) and inputs_sha256 the
// inputs; image and limits are those an attempt will run with. Fails as
// AttemptRequest and BuildJobSpec do for an attempt of `request`
// (InvalidArgument, or FailedPrecondition "limit_exceeded" above the
// tier's or the global maxima). Does not look the volume up. Thread-safe.
StatusOr<store::JobRecord> IntentRecord(const std::string& tenant, const config::TierConfig* tier,
                                        const IntentRequest& request, const config::Config& config);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_INTENT_RECORD_H_
