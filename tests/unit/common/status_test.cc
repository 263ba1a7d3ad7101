#include "coderunner/common/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/common/utf8.h"

namespace coderunner {
namespace {

TEST(StatusTest, DefaultIsOkWithEmptyMessageAndReason) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.reason(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s, OkStatus());
}

TEST(StatusTest, ReasonDefaultsToCodeNameForEveryHelper) {
  struct Case {
    Status status;
    StatusCode code;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {InvalidArgumentError("m"), StatusCode::kInvalidArgument, "invalid_argument"},
      {NotFoundError("m"), StatusCode::kNotFound, "not_found"},
      {AlreadyExistsError("m"), StatusCode::kAlreadyExists, "already_exists"},
      {FailedPreconditionError("m"), StatusCode::kFailedPrecondition, "failed_precondition"},
      {ResourceExhaustedError("m"), StatusCode::kResourceExhausted, "resource_exhausted"},
      {UnavailableError("m"), StatusCode::kUnavailable, "unavailable"},
      {DeadlineExceededError("m"), StatusCode::kDeadlineExceeded, "deadline_exceeded"},
      {InternalError("m"), StatusCode::kInternal, "internal"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.reason);
    EXPECT_FALSE(c.status.ok());
    EXPECT_EQ(c.status.code(), c.code);
    EXPECT_EQ(c.status.message(), "m");
    EXPECT_EQ(c.status.reason(), c.reason);
    EXPECT_EQ(StatusCodeName(c.code), c.reason);
  }
  EXPECT_EQ(StatusCodeName(StatusCode::kOk), "ok");
}

TEST(StatusTest, ExplicitReasonIsKept) {
  Status s = FailedPreconditionError("too big", "limit_exceeded");
  EXPECT_EQ(s.reason(), "limit_exceeded");
  EXPECT_EQ(s.ToString(), "failed_precondition(limit_exceeded): too big");
}

TEST(StatusTest, WithContextPrefixesMessageAndKeepsCodeAndReason) {
  Status s = NotFoundError("no such thing", "engine_not_found").WithContext("inspect");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.reason(), "engine_not_found");
  EXPECT_EQ(s.message(), "inspect: no such thing");
  EXPECT_EQ(s.WithContext("outer").message(), "outer: inspect: no such thing");
}

TEST(StatusTest, WithContextOnOkStaysOk) {
  Status s = OkStatus().WithContext("ignored");
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.message(), "");
}

TEST(StatusTest, EqualityComparesCodeMessageAndReason) {
  EXPECT_EQ(InternalError("a", "r"), InternalError("a", "r"));
  EXPECT_FALSE(InternalError("a", "r") == InternalError("b", "r"));
  EXPECT_FALSE(InternalError("a", "r") == InternalError("a", "s"));
  EXPECT_FALSE(InternalError("a") == NotFoundError("a"));
}

TEST(StatusOrTest, HoldsValue) {
  StatusOr<std::string> v = std::string("hello");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v.status().ok());
  EXPECT_EQ(*v, "hello");
  EXPECT_EQ(v->size(), 5u);
  EXPECT_EQ(v.value(), "hello");
}

TEST(StatusOrTest, HoldsError) {
  StatusOr<int> v = NotFoundError("gone");
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(v.status().message(), "gone");
}

TEST(StatusOrTest, MovesOutMoveOnlyValue) {
  StatusOr<std::unique_ptr<int>> v = std::make_unique<int>(7);
  ASSERT_TRUE(v.ok());
  std::unique_ptr<int> p = std::move(v).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 7);
}

Status FailIf(bool fail) { return fail ? InvalidArgumentError("failed", "why") : OkStatus(); }

Status ReturnIfErrorUser(bool fail, bool* reached_end) {
  CR_RETURN_IF_ERROR(FailIf(fail));
  *reached_end = true;
  return OkStatus();
}

TEST(StatusMacrosTest, ReturnIfErrorReturnsTheErrorAndStopsEarly) {
  bool reached = false;
  Status s = ReturnIfErrorUser(true, &reached);
  EXPECT_EQ(s, InvalidArgumentError("failed", "why"));
  EXPECT_FALSE(reached);
}

TEST(StatusMacrosTest, ReturnIfErrorContinuesOnOk) {
  bool reached = false;
  EXPECT_TRUE(ReturnIfErrorUser(false, &reached).ok());
  EXPECT_TRUE(reached);
}

StatusOr<std::unique_ptr<int>> MakeValue(bool fail) {
  if (fail) return ResourceExhaustedError("full", "queue_full");
  return std::make_unique<int>(41);
}

StatusOr<int> AssignOrReturnUser(bool fail) {
  CR_ASSIGN_OR_RETURN(std::unique_ptr<int> p, MakeValue(fail));
  // Two uses in one function must not clash.
  CR_ASSIGN_OR_RETURN(auto q, MakeValue(fail));
  return *p + *q - 40;
}

TEST(StatusMacrosTest, AssignOrReturnDeclaresValue) {
  auto v = AssignOrReturnUser(false);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 42);
}

TEST(StatusMacrosTest, AssignOrReturnPropagatesError) {
  auto v = AssignOrReturnUser(true);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status(), ResourceExhaustedError("full", "queue_full"));
}

// A message quoting a program's output cut inside a character (as a
// compiler's was, at 2 KiB, inside GCC's ‘) once made the service's error
// JSON throw, and the service end: a message is always UTF-8.
TEST(StatusTest, AMessageIsAlwaysUtf8SoAnyJsonTakesIt) {
  struct Case {
    const char* name;
    std::string message;
    std::string want;
  };
  const std::string quote = "\xE2\x80\x98";  // ‘
  const Case cases[] = {
      {"a character cut at the end", std::string(2047, 'a') + "\xE2\x80",
       std::string(2047, 'a') + "\xEF\xBF\xBD"},
      {"a byte that is never UTF-8", "x\xFFy", "x\xEF\xBF\xBDy"},
      {"well-formed, kept", "error: " + quote + "x" + quote, "error: " + quote + "x" + quote},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Status s = FailedPreconditionError(c.message, "compile_error");
    EXPECT_EQ(s.message(), c.want);
    EXPECT_TRUE(IsValidUtf8(s.WithContext("job").message()));
    EXPECT_NO_THROW((void)nlohmann::json({{"message", s.message()}}).dump());
  }
}

}  // namespace
}  // namespace coderunner
