// What MCP results and resources are made of: the URIs of job artifacts
// and sandbox files, their media types, bounded reads of their bytes, and
// the content blocks that carry them. Private to src/api.
#ifndef CODERUNNER_API_MCP_MCP_CONTENT_H_
#define CODERUNNER_API_MCP_MCP_CONTENT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/isolation/safe_tree.h"

namespace coderunner::api::mcp {

// An image artifact larger than this comes back as a resource link, not
// inline (a result is one JSON message).
inline constexpr int64_t kMaxInlineImageBytes = 4 << 20;
// resources/read answers at most this many bytes; a larger file is
// downloaded through the REST route instead.
inline constexpr int64_t kMaxResourceBytes = 16 << 20;

inline constexpr char kJobArtifactTemplate[] = "coderunner://jobs/{job_id}/artifacts/{path}";
inline constexpr char kSandboxFileTemplate[] = "coderunner://sandboxes/{sandbox_id}/files/{path}";

// A resource this server names.
struct ResourceRef {
  enum class Kind { kJobArtifact, kSandboxFile };
  Kind kind = Kind::kJobArtifact;
  std::string owner;  // The job's or the sandbox's id.
  std::string path;   // Relative, decoded.
};

// coderunner://jobs/{id}/artifacts/{path} with `path` percent-encoded
// (every byte but unreserved characters and '/').
std::string JobArtifactUri(const std::string& job_id, std::string_view path);
std::string SandboxFileUri(const std::string& sandbox_id, std::string_view path);
// The resource `uri` names; nullopt for any other URI (a malformed
// percent escape included).
std::optional<ResourceRef> ParseResourceUri(std::string_view uri);

// The media type of `path` by its extension; application/octet-stream
// when unknown.
std::string MimeTypeOf(std::string_view path);
bool IsInlineImage(std::string_view mime_type);
// Text that resources/read gives as "text" rather than a base64 "blob".
bool IsTextType(std::string_view mime_type);

// Up to `max_bytes` from the regular file behind `fd`. OutOfRange-like
// FailedPrecondition (reason "resource_too_large") when it holds more.
StatusOr<std::string> ReadBounded(const isolation::UniqueFd& fd, int64_t max_bytes);

// A text content block.
nlohmann::json TextContent(std::string text);
// A CallToolResult whose structuredContent is {"error": {code, message}}
// with isError: a refusal as the REST API would answer it.
nlohmann::json ToolError(const Status& status);

}  // namespace coderunner::api::mcp

#endif  // CODERUNNER_API_MCP_MCP_CONTENT_H_
