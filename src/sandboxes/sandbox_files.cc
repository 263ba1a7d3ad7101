#include "coderunner/sandboxes/sandbox_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/mechanism.h"
#include "sandbox_exec.h"

namespace coderunner::sandboxes {
namespace {

// find -printf: type, size, mode, permissions, owner, group, mtime, path,
// name, symlink target; each field NUL-terminated.
constexpr char kEntryFormat[] = R"(%y\0%s\0%m\0%M\0%u\0%g\0%T@\0%p\0%f\0%l\0)";
constexpr size_t kEntryFields = 10;
constexpr size_t kMaxListBytes = 16 * 1024 * 1024;
constexpr auto kFileOpTimeout = std::chrono::seconds(60);
// The exit codes of the scripts below.
constexpr int kExitNotFound = 2;
constexpr int kExitExists = 3;
constexpr int kExitWrongType = 4;

// "[ -e or a dangling symlink ] || not found".
const std::string kMustExist = R"([ -e "$1" ] || [ -L "$1" ] || exit 2; )";
const std::string kPrintEntry =
    std::string(R"(find "$P" -maxdepth 0 -printf ')") + kEntryFormat + "'";

EntryType TypeOf(std::string_view y) {
  if (y == "f") return EntryType::kFile;
  if (y == "d") return EntryType::kDirectory;
  if (y == "l") return EntryType::kSymlink;
  return EntryType::kOther;
}

}  // namespace

StatusOr<std::string> SandboxPath(std::string_view path) {
  if (path.empty() || path.find('\0') != std::string_view::npos) {
    return InvalidArgumentError("a path must be non-empty and hold no NUL byte",
                                kReasonSandboxPathInvalid);
  }
  std::string whole = path.front() == '/'
                          ? std::string(path)
                          : std::string(isolation::kHomeMount) + "/" + std::string(path);
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= whole.size()) {
    size_t slash = whole.find('/', i);
    if (slash == std::string::npos) slash = whole.size();
    std::string part = whole.substr(i, slash - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(std::move(part));
    }
    i = slash + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? std::string("/") : out;
}

StatusOr<std::vector<EntryInfo>> ParseEntries(std::string_view printed) {
  std::vector<std::string_view> fields;
  while (!printed.empty()) {
    size_t nul = printed.find('\0');
    if (nul == std::string_view::npos) return InternalError("entry listing: unterminated field");
    fields.push_back(printed.substr(0, nul));
    printed.remove_prefix(nul + 1);
  }
  if (fields.size() % kEntryFields != 0) return InternalError("entry listing: partial entry");
  std::vector<EntryInfo> out;
  for (size_t i = 0; i < fields.size(); i += kEntryFields) {
    EntryInfo e;
    e.type = TypeOf(fields[i]);
    e.size = std::strtoll(std::string(fields[i + 1]).c_str(), nullptr, 10);
    e.mode = static_cast<uint32_t>(std::strtoul(std::string(fields[i + 2]).c_str(), nullptr, 8));
    e.permissions = fields[i + 3];
    e.owner = fields[i + 4];
    e.group = fields[i + 5];
    e.modified_ms =
        static_cast<int64_t>(std::strtod(std::string(fields[i + 6]).c_str(), nullptr) * 1000);
    e.path = fields[i + 7];
    e.name = fields[i + 8];
    e.symlink_target = fields[i + 9];
    out.push_back(std::move(e));
  }
  return out;
}

SandboxFiles::SandboxFiles(engine::ExecClient& execs, size_t max_read_bytes)
    : execs_(execs), max_read_bytes_(max_read_bytes) {}

StatusOr<std::string> SandboxFiles::Shell(const ExecTarget& target, const std::string& script,
                                          std::vector<std::string> args, size_t max_stdout) {
  std::vector<std::string> command = {"/bin/sh", "-c", script, "sh"};
  command.insert(command.end(), args.begin(), args.end());
  CR_ASSIGN_OR_RETURN(ExecOutput out, RunInSandbox(execs_, target, std::move(command), "/",
                                                   max_stdout, kFileOpTimeout));
  const std::string what = args.empty() ? std::string() : args.front();
  switch (out.exit_code) {
    case 0:
      return std::move(out.stdout_data);
    case kExitNotFound:
      return NotFoundError("no such file or directory: " + what, kReasonSandboxPathNotFound);
    case kExitExists:
      return AlreadyExistsError(what + " already exists", kReasonSandboxPathExists);
    case kExitWrongType:
      return InvalidArgumentError(what + " is not what the call needs (a file or a directory)",
                                  kReasonSandboxPathInvalid);
  }
  if (out.stderr_data.find("No space left") != std::string::npos) {
    return ResourceExhaustedError("the sandbox's disk is full: " + out.stderr_data,
                                  kReasonSandboxNoSpace);
  }
  return FailedPreconditionError(what + ": " + out.stderr_data, "sandbox_permission_denied");
}

StatusOr<std::string> SandboxFiles::Read(const ExecTarget& target, const std::string& path) {
  CR_ASSIGN_OR_RETURN(std::string p, SandboxPath(path));
  return Shell(target, kMustExist + R"([ -d "$1" ] && exit 4; exec cat -- "$1")", {p},
               max_read_bytes_);
}

StatusOr<EntryInfo> SandboxFiles::Write(const ExecTarget& target, const std::string& path,
                                        std::string_view data) {
  CR_ASSIGN_OR_RETURN(std::string p, SandboxPath(path));
  // Staged where the container sees it read-only; the copy is the uid's.
  const std::string name = "." + NewId("upload");
  const std::string staged = target.workspace_dir + "/" + name;
  {
    std::ofstream out(staged, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      unlink(staged.c_str());
      return InternalError("staging an upload failed");
    }
  }
  chmod(staged.c_str(), 0644);
  auto printed = Shell(target,
                       R"sh([ -d "$2" ] && exit 4; mkdir -p -- "$(dirname -- "$2")" && )sh"
                       R"(cat -- "$1" > "$2" && P="$2" && )" +
                           kPrintEntry,
                       {std::string(isolation::kWorkspaceMount) + "/" + name, p}, kMaxListBytes);
  unlink(staged.c_str());
  CR_RETURN_IF_ERROR(printed.status());
  CR_ASSIGN_OR_RETURN(std::vector<EntryInfo> entries, ParseEntries(*printed));
  if (entries.size() != 1) return InternalError("write: no entry for " + p);
  return entries.front();
}

StatusOr<EntryInfo> SandboxFiles::Stat(const ExecTarget& target, const std::string& path) {
  CR_ASSIGN_OR_RETURN(std::string p, SandboxPath(path));
  CR_ASSIGN_OR_RETURN(std::string printed, Shell(target, kMustExist + R"(P="$1" && )" + kPrintEntry,
                                                 {p}, kMaxListBytes));
  CR_ASSIGN_OR_RETURN(std::vector<EntryInfo> entries, ParseEntries(printed));
  if (entries.size() != 1) return InternalError("stat: no entry for " + p);
  return entries.front();
}

StatusOr<std::vector<EntryInfo>> SandboxFiles::List(const ExecTarget& target,
                                                    const std::string& path, int depth) {
  CR_ASSIGN_OR_RETURN(std::string p, SandboxPath(path));
  if (depth < 1) return InvalidArgumentError("depth must be at least 1", kReasonSandboxPathInvalid);
  CR_ASSIGN_OR_RETURN(
      std::string printed,
      Shell(target,
            kMustExist +
                R"([ -d "$1" ] || exit 4; find "$1" -mindepth 1 -maxdepth "$2" -printf ')" +
                kEntryFormat + "'",
            {p, std::to_string(depth)}, kMaxListBytes));
  return ParseEntries(printed);
}

StatusOr<EntryInfo> SandboxFiles::MakeDir(const ExecTarget& target, const std::string& path) {
  CR_ASSIGN_OR_RETURN(std::string p, SandboxPath(path));
  CR_ASSIGN_OR_RETURN(std::string printed,
                      Shell(target,
                            R"({ [ -e "$1" ] || [ -L "$1" ]; } && exit 3; mkdir -p -- "$1" && )"
                            R"(P="$1" && )" +
                                kPrintEntry,
                            {p}, kMaxListBytes));
  CR_ASSIGN_OR_RETURN(std::vector<EntryInfo> entries, ParseEntries(printed));
  if (entries.size() != 1) return InternalError("mkdir: no entry for " + p);
  return entries.front();
}

Status SandboxFiles::Remove(const ExecTarget& target, const std::string& path) {
  CR_ASSIGN_OR_RETURN(std::string p, SandboxPath(path));
  return Shell(target, kMustExist + R"(rm -rf -- "$1")", {p}, kMaxListBytes).status();
}

StatusOr<EntryInfo> SandboxFiles::Move(const ExecTarget& target, const std::string& from,
                                       const std::string& to) {
  CR_ASSIGN_OR_RETURN(std::string a, SandboxPath(from));
  CR_ASSIGN_OR_RETURN(std::string b, SandboxPath(to));
  CR_ASSIGN_OR_RETURN(std::string printed, Shell(target,
                                                 kMustExist +
                                                     R"sh(mkdir -p -- "$(dirname -- "$2")" && )sh"
                                                     R"(mv -T -- "$1" "$2" && P="$2" && )" +
                                                     kPrintEntry,
                                                 {a, b}, kMaxListBytes));
  CR_ASSIGN_OR_RETURN(std::vector<EntryInfo> entries, ParseEntries(printed));
  if (entries.size() != 1) return InternalError("move: no entry for " + b);
  return entries.front();
}

}  // namespace coderunner::sandboxes
