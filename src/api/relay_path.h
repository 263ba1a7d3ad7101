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
#include <utility>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::api {

// The routes on one sandbox that a relay reaches.
enum class SandboxRoute {
  kRecord,    // GET, DELETE /v1/sandboxes/{id}
  kExecute,   // POST /v1/sandboxes/{id}/execute
  kFiles,     // GET /v1/sandboxes/{id}/files
  kFile,      // GET /v1/sandboxes/{id}/files/{path}
  kPackages,  // POST /v1/sandboxes/{id}/packages
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

// The owner's path for a request that relays itself (E2B's surface,
// e2b_relay.h), as its route matched it: `pattern`, the route's own, with
// each capture group "(...)" replaced in turn by the matching one of
// `groups`, percent-encoded; then `query`, the (name, value) pairs of the
// query the route reads, each percent-encoded. An empty, "." or ".."
// group, or a count of groups other than the pattern's: InvalidArgument
// "invalid_path". Pure; thread-safe.
StatusOr<std::string> PatternRelayPath(
    std::string_view pattern, const std::vector<std::string>& groups,
    const std::vector<std::pair<std::string, std::string>>& query);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_RELAY_PATH_H_
