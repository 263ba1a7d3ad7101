// SandboxStore: sandbox records on disk, one JSON file each.
#ifndef CODERUNNER_SANDBOXES_SANDBOX_STORE_H_
#define CODERUNNER_SANDBOXES_SANDBOX_STORE_H_

#include <mutex>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/sandboxes/sandbox_record.h"

namespace coderunner::sandboxes {

// Keeps <dir>/<id>.json per sandbox. A record is written to a temporary
// file, fsynced and renamed over the old one, so a crash leaves either
// version, never a torn one. Sandboxes are few (per-tenant caps) and change
// once per call, so files beat a database here. Thread-safe.
class SandboxStore {
 public:
  // Creates `dir` (0700) if needed. Internal if it cannot.
  static StatusOr<std::unique_ptr<SandboxStore>> Open(const std::string& dir);

  // Writes `record` durably. Internal on I/O errors.
  Status Put(const SandboxRecord& record);
  // Removes the record; a missing one is OK.
  Status Delete(const std::string& id);
  // Every readable record; unreadable files are logged and skipped.
  std::vector<SandboxRecord> LoadAll();

 private:
  explicit SandboxStore(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
  std::mutex mu_;  // One writer at a time per file name.
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_SANDBOX_STORE_H_
