#include "http_status.h"

#include "coderunner/auth/authenticator.h"
#include "coderunner/common/bounded_json.h"
#include "coderunner/common/disk_room.h"
#include "coderunner/engine/volumes.h"
#include "coderunner/sandboxes/sandbox_files.h"
#include "coderunner/sandboxes/sandbox_manager.h"

namespace coderunner::api {

int HttpStatusFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
      if (status.reason() == auth::kReasonUnauthenticated) return 401;
      if (status.reason() == kReasonBodyTooLarge || status.reason() == kJsonTooLarge) return 413;
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
      return 409;
    case StatusCode::kFailedPrecondition:
      if (status.reason() == auth::kReasonForbidden) return 403;
      // States of a resource the client must wait out: 409.
      if (status.reason() == engine::kReasonVolumeInUse ||
          status.reason() == sandboxes::kReasonSandboxBusy ||
          status.reason() == sandboxes::kReasonSandboxNotRunning) {
        return 409;
      }
      return 422;
    case StatusCode::kResourceExhausted:
      // Not the client's rate: the node's disk (Insufficient Storage).
      if (status.reason() == kReasonDiskFull ||
          status.reason() == sandboxes::kReasonSandboxNoSpace) {
        return 507;
      }
      return 429;
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kDeadlineExceeded:
      return 504;
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

nlohmann::json ErrorJson(const Status& status) {
  return {{"error", {{"code", status.reason()}, {"message", status.message()}}}};
}

}  // namespace coderunner::api
