// The path of a request relayed to its owner node (owner_forwarder.h),
// built from what its route matched, never from the request's raw path:
// the id and the file path are validated again, a dot segment is refused
// (as the owner refuses it), and every segment is percent-encoded here. What
// leaves this node names the resource its route matched and nothing else on
// the owner (not its /metrics, /openapi.json or /v1/nodes).
#ifndef CODERUNNER_API_RELAY_PATH_H_
#define CODERUNNER_API_RELAY_PATH_H_

#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::api {

// The routes on one sandbox that a relay reaches.
enum class SandboxRoute {
  kRecord,   // GET, DELETE /v1/sandboxes/{id}
  kExecute,  // POST /v1/sandboxes/{id}/execute
  kFiles,    // GET /v1/sandboxes/{id}/files
  kFile,     // GET /v1/sandboxes/{id}/files/{path}
};

// A request on one sandbox, as its route matched it.
struct SandboxTarget {
  SandboxRoute route = SandboxRoute::kRecord;
  std::string id;    // NewId("sbx").
  std::string file;  // kFile: the path below /output, decoded; "" otherwise.
};

// `segment` percent-encoded: every byte but ALPHA, DIGIT and "-._~" (so a
// '/', '?', '#' or '%' in it stays part of the segment). Pure.
std::string EscapePathSegment(std::string_view segment);

// The owner's path for `target`: "/v1/sandboxes/{id}" then "/execute",
// "/files" or "/files/{file}", each segment of `file` percent-encoded
// (every byte but ALPHA, DIGIT and "-._~"). An id that NewId("sbx") could
// not have made: NotFound kReasonSandboxNotFound (as the owner answers an
// unknown one); a file path SplitSafeRelativePath refuses (a "." or ".."
// segment, an empty one, an absolute path...): InvalidArgument
// "invalid_path", as the owner answers it. Pure; thread-safe.
StatusOr<std::string> SandboxRelayPath(const SandboxTarget& target);

// "/v1/jobs/{job_id}/artifacts/{file}" in the same way; an id that
// NewId("job") could not have made: NotFound store::kReasonJobNotFound.
// Pure; thread-safe.
StatusOr<std::string> ArtifactRelayPath(std::string_view job_id, std::string_view file);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_RELAY_PATH_H_
