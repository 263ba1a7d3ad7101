#include "coderunner/common/status.h"

#include "coderunner/common/utf8.h"

namespace coderunner {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kAlreadyExists:
      return "already_exists";
    case StatusCode::kFailedPrecondition:
      return "failed_precondition";
    case StatusCode::kResourceExhausted:
      return "resource_exhausted";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kDeadlineExceeded:
      return "deadline_exceeded";
    case StatusCode::kInternal:
      return "internal";
  }
  return "unknown";
}

Status::Status(StatusCode code, std::string message, std::string reason)
    : code_(code), message_(std::move(message)), reason_(std::move(reason)) {
  if (reason_.empty() && code_ != StatusCode::kOk) reason_ = std::string(StatusCodeName(code_));
  // Messages quote what programs print (a compiler's, init's): every
  // error JSON puts them in as they are, and a JSON string must be UTF-8.
  if (!IsValidUtf8(message_)) message_ = SanitizeUtf8(message_);
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return *this;
  return Status(code_, std::string(prefix) + ": " + message_, reason_);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(StatusCodeName(code_)) + "(" + reason_ + "): " + message_;
}

}  // namespace coderunner
