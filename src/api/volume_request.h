// The body of POST /v1/volumes, parsed into volumes::VolumeRequest.
#ifndef CODERUNNER_API_VOLUME_REQUEST_H_
#define CODERUNNER_API_VOLUME_REQUEST_H_

#include <string_view>

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/status.h"
#include "coderunner/volumes/volume_service.h"

namespace coderunner::api {

// Parses {"name"?, "size_bytes"} within `bounds`. Errors, all
// InvalidArgument: ParseBoundedJson's for bytes that are not JSON within
// them; "invalid_request" naming the field for a body that is not an
// object, an unknown field, a name that is not 1 to 64 letters, digits,
// '.', '-' or '_' (null is none), or a size_bytes that is missing or not a
// positive integer. Does not check the tier or volumes.max_size_bytes
// (VolumeService::Create does). Pure; thread-safe.
StatusOr<volumes::VolumeRequest> ParseVolumeRequest(std::string_view body,
                                                    const JsonBounds& bounds);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_VOLUME_REQUEST_H_
