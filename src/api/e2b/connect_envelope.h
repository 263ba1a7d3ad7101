// The Connect protocol's framing, as the E2B SDKs speak it with the JSON
// codec (connectrpc.com/docs/protocol): a streaming message is an envelope
// of one flags byte, a 4-byte big-endian length and that many bytes of
// JSON; a server stream ends with an envelope flagged end-of-stream whose
// JSON is {} or {"error":{"code","message"}}. A unary call is a plain JSON
// body, and its error a JSON body under the code's HTTP status.
#ifndef CODERUNNER_API_E2B_CONNECT_ENVELOPE_H_
#define CODERUNNER_API_E2B_CONNECT_ENVELOPE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::api::e2b {

inline constexpr uint8_t kEnvelopeCompressed = 0x01;
inline constexpr uint8_t kEnvelopeEndStream = 0x02;
inline constexpr size_t kEnvelopeHeaderBytes = 5;

// Connect's name for what `status` means: "not_found", "deadline_exceeded",
// "invalid_argument", ... (StatusCodeName: the names are Connect's), or
// what its reason says ("unauthenticated", "permission_denied",
// "unimplemented"). Pure.
std::string_view ConnectCode(const Status& status);

// The HTTP status a unary call's error carries for a Connect code. Pure.
int ConnectHttpStatus(std::string_view connect_code);

// {"code": ConnectCode, "message", "reason": coderunner's reason}: a unary
// error body, and the "error" member of an end-of-stream envelope (the
// SDKs read code and message and ignore the rest). Pure.
nlohmann::json ConnectErrorJson(const Status& status);

// One envelope around `json` with `flags`. Pure.
std::string Envelope(uint8_t flags, std::string_view json);

// The message of a streaming request's body: exactly one uncompressed
// envelope. InvalidArgument for anything else. Pure.
StatusOr<std::string_view> SingleEnvelopedMessage(std::string_view body);

}  // namespace coderunner::api::e2b

#endif  // CODERUNNER_API_E2B_CONNECT_ENVELOPE_H_
