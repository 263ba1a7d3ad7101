#include "mcp_content.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <utility>

#include "coderunner/common/utf8.h"
#include "relay_path.h"

namespace coderunner::api::mcp {
namespace {

using nlohmann::json;

constexpr std::string_view kScheme = "coderunner://";
constexpr std::string_view kJobsPrefix = "jobs/";
constexpr std::string_view kArtifactsPart = "/artifacts/";
constexpr std::string_view kSandboxesPrefix = "sandboxes/";
constexpr std::string_view kFilesPart = "/files/";

struct TypeByExtension {
  std::string_view extension;
  std::string_view mime_type;
};

constexpr std::array<TypeByExtension, 16> kTypes = {{
    {".png", "image/png"},
    {".jpg", "image/jpeg"},
    {".jpeg", "image/jpeg"},
    {".svg", "image/svg+xml"},
    {".gif", "image/gif"},
    {".txt", "text/plain"},
    {".log", "text/plain"},
    {".md", "text/markdown"},
    {".csv", "text/csv"},
    {".tsv", "text/tab-separated-values"},
    {".html", "text/html"},
    {".json", "application/json"},
    {".xml", "application/xml"},
    {".py", "text/x-python"},
    {".js", "text/javascript"},
    {".pdf", "application/pdf"},
}};

// `path` with each of its '/'-separated segments percent-encoded
// (EscapePathSegment, as a relayed path is).
std::string EncodePath(std::string_view path) {
  std::string out;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    out += EscapePathSegment(path.substr(start, slash - start));
    if (slash == std::string_view::npos) return out;
    out += '/';
    start = slash + 1;
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

// "<owner><part><path>" after `prefix`: the owner and the decoded path.
std::optional<ResourceRef> Split(std::string_view rest, std::string_view part,
                                 ResourceRef::Kind kind) {
  size_t cut = rest.find(part);
  if (cut == std::string_view::npos || cut == 0) return std::nullopt;
  auto path = PercentDecode(rest.substr(cut + part.size()));
  if (!path || path->empty()) return std::nullopt;
  return ResourceRef{kind, std::string(rest.substr(0, cut)), std::move(*path)};
}

}  // namespace

std::string JobArtifactUri(const std::string& job_id, std::string_view path) {
  return std::string(kScheme) + std::string(kJobsPrefix) + job_id + std::string(kArtifactsPart) +
         EncodePath(path);
}

std::string SandboxFileUri(const std::string& sandbox_id, std::string_view path) {
  return std::string(kScheme) + std::string(kSandboxesPrefix) + sandbox_id +
         std::string(kFilesPart) + EncodePath(path);
}

std::optional<ResourceRef> ParseResourceUri(std::string_view uri) {
  if (uri.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  std::string_view rest = uri.substr(kScheme.size());
  if (rest.substr(0, kJobsPrefix.size()) == kJobsPrefix) {
    return Split(rest.substr(kJobsPrefix.size()), kArtifactsPart, ResourceRef::Kind::kJobArtifact);
  }
  if (rest.substr(0, kSandboxesPrefix.size()) == kSandboxesPrefix) {
    return Split(rest.substr(kSandboxesPrefix.size()), kFilesPart, ResourceRef::Kind::kSandboxFile);
  }
  return std::nullopt;
}

std::string MimeTypeOf(std::string_view path) {
  std::string lower;
  for (char c : path.substr(
           path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1)) {
    lower.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  }
  for (const auto& t : kTypes) {
    if (lower.size() > t.extension.size() &&
        lower.compare(lower.size() - t.extension.size(), t.extension.size(), t.extension) == 0) {
      return std::string(t.mime_type);
    }
  }
  return "application/octet-stream";
}

bool IsInlineImage(std::string_view mime_type) {
  return mime_type == "image/png" || mime_type == "image/jpeg" || mime_type == "image/svg+xml";
}

bool IsTextType(std::string_view mime_type) {
  return mime_type.substr(0, 5) == "text/" || mime_type == "application/json" ||
         mime_type == "application/xml" || mime_type == "image/svg+xml";
}

StatusOr<std::string> ReadBounded(const isolation::UniqueFd& fd, int64_t max_bytes) {
  struct stat st;
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return InternalError("stat resource", "internal");
  }
  if (st.st_size > max_bytes) {
    return FailedPreconditionError("the file holds " + std::to_string(st.st_size) +
                                       " bytes, more than the " + std::to_string(max_bytes) +
                                       " MCP answers inline: download it through the REST API",
                                   "resource_too_large");
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = pread(fd.get(), out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (n < 0) return InternalError("read resource", "internal");
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

json TextContent(std::string text) { return {{"type", "text"}, {"text", std::move(text)}}; }

json ToolError(const Status& status) {
  json error = {{"code", status.reason().empty() ? "error" : status.reason()},
                {"message", SanitizeUtf8(status.message())}};
  return {{"content", json::array({TextContent("error " + error["code"].get<std::string>() + ": " +
                                               error["message"].get<std::string>())})},
          {"structuredContent", {{"error", error}}},
          {"isError", true}};
}

}  // namespace coderunner::api::mcp
