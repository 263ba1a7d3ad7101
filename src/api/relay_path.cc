#include "relay_path.h"

#include <vector>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/file_path.h"
#include "coderunner/sandboxes/sandbox_manager.h"
#include "coderunner/store/job_store.h"
#include "uri_unreserved.h"

namespace coderunner::api {
namespace {

// SplitSafeRelativePath's depth bound for a relayed path: a path of 1024
// bytes (its length bound) has at most 512 components. The owner applies
// its own depth bound when it serves the file.
constexpr int kRelayedFileMaxDepth = 512;

// "/" + each segment of `file` (validated), percent-encoded.
StatusOr<std::string> FileSuffix(std::string_view file) {
  CR_ASSIGN_OR_RETURN(std::vector<std::string> segments,
                      isolation::SplitSafeRelativePath(file, kRelayedFileMaxDepth));
  std::string out;
  for (const std::string& segment : segments) out += "/" + EscapePathSegment(segment);
  return out;
}

}  // namespace

// `segment` percent-encoded: every byte but the unreserved ones (so a '/',
// '?', '#' or '%' in it stays part of the segment).
std::string EscapePathSegment(std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : segment) {
    if (IsUriUnreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

StatusOr<std::string> SandboxRelayPath(const SandboxTarget& target) {
  if (!IsId("sbx", target.id)) {
    return NotFoundError("no sandbox " + EscapePathSegment(target.id.substr(0, 64)),
                         sandboxes::kReasonSandboxNotFound);
  }
  std::string path = "/v1/sandboxes/" + target.id;
  switch (target.route) {
    case SandboxRoute::kRecord:
      return path;
    case SandboxRoute::kExecute:
      return path + "/execute";
    case SandboxRoute::kFiles:
      return path + "/files";
    case SandboxRoute::kPackages:
      return path + "/packages";
    case SandboxRoute::kFile: {
      CR_ASSIGN_OR_RETURN(std::string suffix, FileSuffix(target.file));
      return path + "/files" + suffix;
    }
  }
  return InternalError("unknown sandbox route");
}

StatusOr<std::string> ArtifactRelayPath(std::string_view job_id, std::string_view file) {
  if (!IsId("job", job_id)) {
    return NotFoundError("no job " + EscapePathSegment(job_id.substr(0, 64)),
                         store::kReasonJobNotFound);
  }
  CR_ASSIGN_OR_RETURN(std::string suffix, FileSuffix(file));
  return "/v1/jobs/" + std::string(job_id) + "/artifacts" + suffix;
}

StatusOr<std::string> PatternRelayPath(
    std::string_view pattern, const std::vector<std::string>& groups,
    const std::vector<std::pair<std::string, std::string>>& query) {
  std::string path;
  size_t used = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '(') {
      path.push_back(pattern[i]);
      continue;
    }
    const size_t close = pattern.find(')', i);
    if (close == std::string_view::npos || used == groups.size()) {
      return InvalidArgumentError("the route's groups do not match its pattern", "invalid_path");
    }
    const std::string& group = groups[used++];
    if (group.empty() || group == "." || group == "..") {
      return InvalidArgumentError("a path segment may not be empty, . or ..", "invalid_path");
    }
    path += EscapePathSegment(group);
    i = close;
  }
  if (used != groups.size()) {
    return InvalidArgumentError("the route's groups do not match its pattern", "invalid_path");
  }
  char sep = '?';
  for (const auto& [name, value] : query) {
    path += sep + EscapePathSegment(name) + "=" + EscapePathSegment(value);
    sep = '&';
  }
  return path;
}

}  // namespace coderunner::api
