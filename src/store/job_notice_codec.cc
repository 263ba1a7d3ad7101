#include "job_notice_codec.h"

#include "coderunner/store/pg_job_notices.h"

namespace coderunner::store {
namespace {

constexpr char kSeparator = ':';
constexpr char kQueuedTag = 'q';
constexpr char kChangedTag = 'c';
constexpr char kCancelTag = 'x';
constexpr unsigned char kFirstIdByte = 0x21;  // '!': no space, no control.
constexpr unsigned char kLastIdByte = 0x7e;   // '~': no DEL, no non-ASCII.

char TagOf(JobNotice::Kind kind) {
  switch (kind) {
    case JobNotice::Kind::kQueued:
      return kQueuedTag;
    case JobNotice::Kind::kCancel:
      return kCancelTag;
    case JobNotice::Kind::kChanged:
      break;
  }
  return kChangedTag;
}

std::optional<JobNotice::Kind> KindOf(char tag) {
  switch (tag) {
    case kQueuedTag:
      return JobNotice::Kind::kQueued;
    case kChangedTag:
      return JobNotice::Kind::kChanged;
    case kCancelTag:
      return JobNotice::Kind::kCancel;
    default:
      return std::nullopt;
  }
}

}  // namespace

Status CheckJobNotice(const JobNotice& notice) {
  const std::string& id = notice.job_id;
  if (id.empty()) {
    if (notice.kind == JobNotice::Kind::kQueued) return OkStatus();
    return InvalidArgumentError("a changed or cancel notice needs a job id", kReasonInvalidNotice);
  }
  if (id.size() > kMaxNoticeJobIdBytes) {
    return InvalidArgumentError("notice job id longer than 128 bytes", kReasonInvalidNotice);
  }
  for (char c : id) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < kFirstIdByte || byte > kLastIdByte) {
      return InvalidArgumentError("notice job id holds a byte outside printable ASCII",
                                  kReasonInvalidNotice);
    }
  }
  return OkStatus();
}

std::string EncodeJobNotice(const JobNotice& notice) {
  std::string payload;
  payload.reserve(2 + notice.job_id.size());
  payload.push_back(TagOf(notice.kind));
  payload.push_back(kSeparator);
  payload.append(notice.job_id);
  return payload;
}

std::optional<JobNotice> DecodeJobNotice(std::string_view payload) {
  if (payload.size() < 2 || payload[1] != kSeparator) return std::nullopt;
  std::optional<JobNotice::Kind> kind = KindOf(payload[0]);
  if (!kind) return std::nullopt;
  JobNotice notice;
  notice.kind = *kind;
  notice.job_id = std::string(payload.substr(2));
  if (!CheckJobNotice(notice).ok()) return std::nullopt;
  return notice;
}

}  // namespace coderunner::store
