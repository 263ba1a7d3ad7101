#include "api/http_status.h"

#include <gtest/gtest.h>

#include <vector>

namespace coderunner::api {
namespace {

TEST(HttpStatusTest, MapsEveryCode) {
  struct Case {
    Status status;
    int http;
  };
  const std::vector<Case> cases = {
      {OkStatus(), 200},
      {InvalidArgumentError("m"), 400},
      {InvalidArgumentError("m", "invalid_json"), 400},
      {InvalidArgumentError("m", "body_too_large"), 413},
      {NotFoundError("m"), 404},
      {AlreadyExistsError("m"), 409},
      {FailedPreconditionError("m", "limit_exceeded"), 422},
      {FailedPreconditionError("m", "forbidden"), 403},
      {FailedPreconditionError("m", "volume_in_use"), 409},
      {ResourceExhaustedError("m"), 429},
      {ResourceExhaustedError("m", "rate_limited"), 429},
      // A full disk is the node's, not the client's rate.
      {ResourceExhaustedError("m", "disk_full"), 507},
      {UnavailableError("m"), 503},
      {DeadlineExceededError("m"), 504},
      {InternalError("m"), 500},
      // The reason only matters for InvalidArgument.
      {InternalError("m", "body_too_large"), 500},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.status.ToString());
    EXPECT_EQ(HttpStatusFor(c.status), c.http);
  }
}

TEST(HttpStatusTest, ErrorJsonCarriesReasonAndMessage) {
  nlohmann::json j =
      ErrorJson(FailedPreconditionError("limits.pids = 9 exceeds", "limit_exceeded"));
  EXPECT_EQ(j, nlohmann::json::parse(
                   R"({"error":{"code":"limit_exceeded","message":"limits.pids = 9 exceeds"}})"));
  EXPECT_EQ(ErrorJson(NotFoundError("x"))["error"]["code"], "not_found");
}

}  // namespace
}  // namespace coderunner::api
