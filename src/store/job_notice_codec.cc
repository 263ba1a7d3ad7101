#include "job_notice_codec.h"

#include <charconv>

#include "coderunner/common/base64.h"

namespace coderunner::store {
namespace {

constexpr char kSeparator = ':';
constexpr char kQueuedTag = 'q';
constexpr char kChangedTag = 'c';
constexpr char kCancelTag = 'x';
constexpr char kWatchTag = 'w';
constexpr char kOutputTag = 'o';
constexpr char kStdoutTag = 'o';
constexpr char kStderrTag = 'e';
constexpr size_t kMaxOffsetDigits = 18;
constexpr unsigned char kFirstIdByte = 0x21;  // '!': no space, no control.
constexpr unsigned char kLastIdByte = 0x7e;   // '~': no DEL, no non-ASCII.

char TagOf(JobNotice::Kind kind) {
  switch (kind) {
    case JobNotice::Kind::kQueued:
      return kQueuedTag;
    case JobNotice::Kind::kCancel:
      return kCancelTag;
    case JobNotice::Kind::kWatch:
      return kWatchTag;
    case JobNotice::Kind::kOutput:
      return kOutputTag;
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
    case kWatchTag:
      return JobNotice::Kind::kWatch;
    case kOutputTag:
      return JobNotice::Kind::kOutput;
    default:
      return std::nullopt;
  }
}

Status CheckOutput(const JobNotice& notice) {
  if (notice.data.empty() || notice.data.size() > kMaxNoticeOutputBytes) {
    return InvalidArgumentError("output notice data must be 1..5000 bytes", kReasonInvalidNotice);
  }
  if (notice.offset < 0 || notice.offset > kMaxNoticeOutputOffset) {
    return InvalidArgumentError("output notice offset out of range", kReasonInvalidNotice);
  }
  return OkStatus();
}

// Splits the next field (up to the next ':') off `rest`; nullopt if none.
std::optional<std::string_view> NextField(std::string_view* rest) {
  size_t colon = rest->find(kSeparator);
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view field = rest->substr(0, colon);
  rest->remove_prefix(colon + 1);
  return field;
}

// Canonical decimal (no sign, no leading zero but "0"), at most 18 digits.
std::optional<int64_t> ParseOffset(std::string_view text) {
  if (text.empty() || text.size() > kMaxOffsetDigits) return std::nullopt;
  if (text.size() > 1 && text[0] == '0') return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;  // from_chars takes a '-'.
  }
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// The fields of "<o|e>:<offset>:<base64>:" before the job id of a kOutput
// payload (`rest`, after "o:"), into `notice`; false if malformed.
bool DecodeOutputFields(std::string_view* rest, JobNotice* notice) {
  std::optional<std::string_view> stream = NextField(rest);
  std::optional<std::string_view> offset = stream ? NextField(rest) : std::nullopt;
  std::optional<std::string_view> data = offset ? NextField(rest) : std::nullopt;
  if (!data || stream->size() != 1) return false;
  if ((*stream)[0] != kStdoutTag && (*stream)[0] != kStderrTag) return false;
  std::optional<int64_t> at = ParseOffset(*offset);
  if (!at) return false;
  StatusOr<std::string> bytes = Base64Decode(*data);
  if (!bytes.ok() || Base64Encode(*bytes) != *data) return false;  // Canonical only.
  notice->is_stderr = (*stream)[0] == kStderrTag;
  notice->offset = *at;
  notice->data = std::move(*bytes);
  return true;
}

}  // namespace

Status CheckJobNotice(const JobNotice& notice) {
  const std::string& id = notice.job_id;
  if (id.empty()) {
    if (notice.kind == JobNotice::Kind::kQueued) return OkStatus();
    return InvalidArgumentError("a notice of this kind needs a job id", kReasonInvalidNotice);
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
  if (notice.kind == JobNotice::Kind::kOutput) return CheckOutput(notice);
  return OkStatus();
}

std::string EncodeJobNotice(const JobNotice& notice) {
  std::string payload;
  payload.push_back(TagOf(notice.kind));
  payload.push_back(kSeparator);
  if (notice.kind == JobNotice::Kind::kOutput) {
    payload.push_back(notice.is_stderr ? kStderrTag : kStdoutTag);
    payload.push_back(kSeparator);
    payload.append(std::to_string(notice.offset));
    payload.push_back(kSeparator);
    payload.append(Base64Encode(notice.data));
    payload.push_back(kSeparator);
  }
  payload.append(notice.job_id);
  return payload;
}

std::optional<JobNotice> DecodeJobNotice(std::string_view payload) {
  if (payload.size() < 2 || payload[1] != kSeparator) return std::nullopt;
  std::optional<JobNotice::Kind> kind = KindOf(payload[0]);
  if (!kind) return std::nullopt;
  JobNotice notice;
  notice.kind = *kind;
  std::string_view rest = payload.substr(2);
  if (*kind == JobNotice::Kind::kOutput && !DecodeOutputFields(&rest, &notice)) {
    return std::nullopt;
  }
  notice.job_id = std::string(rest);
  if (!CheckJobNotice(notice).ok()) return std::nullopt;
  return notice;
}

}  // namespace coderunner::store
