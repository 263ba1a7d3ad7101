#include "e2b/connect_envelope.h"

#include "coderunner/auth/authenticator.h"
#include "e2b/e2b_routes.h"

namespace coderunner::api::e2b {

std::string_view ConnectCode(const Status& status) {
  if (status.reason() == auth::kReasonUnauthenticated) return "unauthenticated";
  if (status.reason() == auth::kReasonForbidden) return "permission_denied";
  if (status.reason() == kReasonE2bUnsupported) return "unimplemented";
  // Every other code has the name Connect gives it ("invalid_argument",
  // "not_found", ...).
  return StatusCodeName(status.code());
}

int ConnectHttpStatus(std::string_view connect_code) {
  struct Row {
    std::string_view code;
    int http;
  };
  // connectrpc.com/docs/protocol#error-codes.
  static constexpr Row kRows[] = {
      {"canceled", 499},
      {"unknown", 500},
      {"invalid_argument", 400},
      {"deadline_exceeded", 504},
      {"not_found", 404},
      {"already_exists", 409},
      {"permission_denied", 403},
      {"resource_exhausted", 429},
      {"failed_precondition", 400},
      {"aborted", 409},
      {"out_of_range", 400},
      {"unimplemented", 501},
      {"internal", 500},
      {"unavailable", 503},
      {"data_loss", 500},
      {"unauthenticated", 401},
  };
  for (const Row& row : kRows) {
    if (row.code == connect_code) return row.http;
  }
  return 500;
}

nlohmann::json ConnectErrorJson(const Status& status) {
  return {
      {"code", ConnectCode(status)}, {"message", status.message()}, {"reason", status.reason()}};
}

std::string Envelope(uint8_t flags, std::string_view json) {
  const uint32_t n = static_cast<uint32_t>(json.size());
  std::string out;
  out.reserve(kEnvelopeHeaderBytes + json.size());
  out.push_back(static_cast<char>(flags));
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((n >> shift) & 0xff));
  out.append(json);
  return out;
}

StatusOr<std::string_view> SingleEnvelopedMessage(std::string_view body) {
  if (body.size() < kEnvelopeHeaderBytes) {
    return InvalidArgumentError("connect: the body is not an enveloped message");
  }
  const auto flags = static_cast<uint8_t>(body[0]);
  if (flags & kEnvelopeCompressed) {
    return InvalidArgumentError("connect: compressed messages are not accepted");
  }
  uint64_t n = 0;
  for (size_t i = 1; i < kEnvelopeHeaderBytes; ++i) n = (n << 8) | static_cast<uint8_t>(body[i]);
  if (n != body.size() - kEnvelopeHeaderBytes) {
    return InvalidArgumentError("connect: the body holds other than one whole message");
  }
  return body.substr(kEnvelopeHeaderBytes);
}

}  // namespace coderunner::api::e2b
