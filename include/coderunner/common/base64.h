// Standard (RFC 4648, padded) base64.
#ifndef CODERUNNER_COMMON_BASE64_H_
#define CODERUNNER_COMMON_BASE64_H_

#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner {

// Encodes `bytes`. Pure; thread-safe.
std::string Base64Encode(std::string_view bytes);

// Decodes padded base64 (whitespace not allowed). Malformed input is
// InvalidArgument with reason "invalid_base64".
StatusOr<std::string> Base64Decode(std::string_view text);

}  // namespace coderunner

#endif  // CODERUNNER_COMMON_BASE64_H_
