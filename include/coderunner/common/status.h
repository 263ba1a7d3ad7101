// Status and StatusOr<T>: the error model used by every coderunner module.
//
// A Status is a code from a deliberately small set plus a human-readable
// message and a machine-readable `reason` (snake_case, e.g. "limit_exceeded")
// that the HTTP layer puts in `error.code`. Functions that can fail return
// Status or StatusOr<T>; exceptions from third-party libraries are caught at
// module boundaries and converted. Both types are values: cheap to move,
// safe to copy, and not synchronized (do not share one instance between
// threads without external locking).
#ifndef CODERUNNER_COMMON_STATUS_H_
#define CODERUNNER_COMMON_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace coderunner {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // The caller sent something malformed.
  kNotFound,            // The named thing does not exist (or is not visible).
  kAlreadyExists,       // Creating something that is already there.
  kFailedPrecondition,  // Well-formed but not acceptable in the current state/policy.
  kResourceExhausted,   // A quota, cap or queue is full.
  kUnavailable,         // A dependency (the engine) cannot be reached right now.
  kDeadlineExceeded,    // An operation ran out of time.
  kInternal,            // A bug or an unexpected failure of ours.
};

// Returns "ok", "invalid_argument", ... for `code`.
std::string_view StatusCodeName(StatusCode code);

class Status {
 public:
  // An OK status.
  Status() = default;
  // A status with `code`; `reason` defaults to StatusCodeName(code). The
  // message is kept as well-formed UTF-8: an ill-formed sequence (a cut
  // character of a program's output it quotes) becomes U+FFFD, so that any
  // message can go into JSON as it is.
  Status(StatusCode code, std::string message, std::string reason = "");

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Machine-readable snake_case reason, suitable for API `error.code`.
  const std::string& reason() const { return reason_; }

  // Returns a copy whose message is "<prefix>: <message>"; code and reason kept.
  Status WithContext(std::string_view prefix) const;
  // "CODE(reason): message", for logs.
  std::string ToString() const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_ && a.reason_ == b.reason_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string reason_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgumentError(std::string m, std::string r = "") {
  return Status(StatusCode::kInvalidArgument, std::move(m), std::move(r));
}
inline Status NotFoundError(std::string m, std::string r = "") {
  return Status(StatusCode::kNotFound, std::move(m), std::move(r));
}
inline Status AlreadyExistsError(std::string m, std::string r = "") {
  return Status(StatusCode::kAlreadyExists, std::move(m), std::move(r));
}
inline Status FailedPreconditionError(std::string m, std::string r = "") {
  return Status(StatusCode::kFailedPrecondition, std::move(m), std::move(r));
}
inline Status ResourceExhaustedError(std::string m, std::string r = "") {
  return Status(StatusCode::kResourceExhausted, std::move(m), std::move(r));
}
inline Status UnavailableError(std::string m, std::string r = "") {
  return Status(StatusCode::kUnavailable, std::move(m), std::move(r));
}
inline Status DeadlineExceededError(std::string m, std::string r = "") {
  return Status(StatusCode::kDeadlineExceeded, std::move(m), std::move(r));
}
inline Status InternalError(std::string m, std::string r = "") {
  return Status(StatusCode::kInternal, std::move(m), std::move(r));
}

// Either a value of type T or a non-OK Status. Accessing value() on an error
// is a programming bug and asserts in debug builds.
template <typename T>
class StatusOr {
 public:
  StatusOr(const Status& status) : status_(status) { assert(!status_.ok()); }        // NOLINT
  StatusOr(Status&& status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT
  StatusOr(const T& value) : value_(value) {}                                        // NOLINT
  StatusOr(T&& value) : value_(std::move(value)) {}                                  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    assert(ok());
    return *value_;
  }
  const T& value() const& {
    assert(ok());
    return *value_;
  }
  T&& value() && {
    assert(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace coderunner

// Evaluates `expr` (a Status); returns it from the enclosing function if not OK.
#define CR_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::coderunner::Status cr_status_ = (expr); \
    if (!cr_status_.ok()) return cr_status_;  \
  } while (0)

#define CR_CONCAT_INNER(a, b) a##b
#define CR_CONCAT(a, b) CR_CONCAT_INNER(a, b)
// Declares `lhs` from a StatusOr expression, or returns its error.
#define CR_ASSIGN_OR_RETURN(lhs, expr) \
  CR_ASSIGN_OR_RETURN_IMPL(CR_CONCAT(cr_statusor_, __LINE__), lhs, expr)
#define CR_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

#endif  // CODERUNNER_COMMON_STATUS_H_
