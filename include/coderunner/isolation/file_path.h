// Validation of untrusted relative file paths (request file names).
#ifndef CODERUNNER_ISOLATION_FILE_PATH_H_
#define CODERUNNER_ISOLATION_FILE_PATH_H_

#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::isolation {

// Splits `path` into components if it is a safe relative path: not empty,
// not absolute, no "." or ".." or empty components, no NUL or control
// characters or backslashes, at most `max_depth` components and 255 bytes
// per component, 1024 bytes overall. Anything else is InvalidArgument with
// reason "invalid_path". Pure; thread-safe.
StatusOr<std::vector<std::string>> SplitSafeRelativePath(std::string_view path, int max_depth);

// True for paths whose first component starts with ".coderunner": the
// service's own files in a workspace. Requests may not use them.
bool IsReservedPath(std::string_view path);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_FILE_PATH_H_
