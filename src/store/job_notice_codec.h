// The text payload of a JobNotice on the PostgreSQL channel (see
// postgres/pg_job_notices.h for the format): no backend header, so that the
// fuzzers run it in a build without the fleet. Internal to src/store.
// Pure functions, thread-safe.
#ifndef CODERUNNER_SRC_STORE_JOB_NOTICE_CODEC_H_
#define CODERUNNER_SRC_STORE_JOB_NOTICE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/store/job_notices.h"

namespace coderunner::store {

inline constexpr size_t kMaxNoticeJobIdBytes = 128;

// The highest kOutput offset sent or accepted (18 decimal digits).
inline constexpr int64_t kMaxNoticeOutputOffset = 999'999'999'999'999'999;

// OK if `notice` can be sent: its job_id is 1..128 bytes of 0x21..0x7e
// (or empty, for kQueued only); a kOutput's data is 1..kMaxNoticeOutputBytes
// bytes at an offset in 0..kMaxNoticeOutputOffset. InvalidArgument
// ("invalid_notice") naming the problem otherwise (the id itself is not
// echoed: it may be junk).
Status CheckJobNotice(const JobNotice& notice);

// "q:<id>", "c:<id>", "x:<id>", "w:<id>" or, for kOutput,
// "o:<o|e>:<offset>:<base64 data>:<id>" (stdout o, stderr e; the offset in
// decimal without leading zeros; the id last, as it may hold ':'). At most
// 6,820 bytes. `notice` must pass CheckJobNotice.
std::string EncodeJobNotice(const JobNotice& notice);

// The notice `payload` encodes, or nullopt for anything else (unknown
// kind, missing ':', a job id CheckJobNotice refuses; for kOutput a
// stream other than o/e, an offset that is not canonical decimal, base64
// that is not canonical or decodes to no or too many bytes). Never throws.
std::optional<JobNotice> DecodeJobNotice(std::string_view payload);

}  // namespace coderunner::store

#endif  // CODERUNNER_SRC_STORE_JOB_NOTICE_CODEC_H_
