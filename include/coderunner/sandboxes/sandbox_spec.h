// What a validated request asks of the sandbox manager.
#ifndef CODERUNNER_SANDBOXES_SANDBOX_SPEC_H_
#define CODERUNNER_SANDBOXES_SANDBOX_SPEC_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/isolation/job_spec.h"

namespace coderunner::sandboxes {

// A new sandbox: its id, language, limits (limits.timeout_ms is a call's
// default timeout) and runtime, as for a job; and its idle lifetime.
struct SandboxCreateSpec {
  isolation::JobSpec spec;
  int64_t ttl_s = 0;  // s.
  // An E2B client's: its template, metadata, and every process's
  // environment (SandboxRecord keeps them).
  std::string template_id;
  std::map<std::string, std::string> metadata;
  std::map<std::string, std::string> envs;
  std::string access_token;  // See SandboxRecord.
  // The sandbox must have spec.id (an E2B context's id names its language).
  // Otherwise a sandbox launched ahead may be given, with an id of its own:
  // the created record's id is the sandbox's.
  bool fixed_id = false;
};

// A call's output as it comes: each piece of stdout or stderr, once no end
// marker can take it back, in order per stream. It is what the call's
// answer keeps (within the cap; a driver's rich-result records included),
// but for a call after one the service never read to its end, whose first
// pieces may be that call's tail. Called on the thread that reads the
// sandbox's output, with a lock held: it must not block.
using CallOutputFn = std::function<void(bool is_stderr, std::string_view bytes)>;

// One call: code, files to place under /workspace first, and the timeout
// (the sandbox's default when unset).
struct SandboxCallSpec {
  std::string code;
  std::vector<isolation::InputFile> files;
  std::optional<int64_t> timeout_ms;  // ms.
  CallOutputFn on_output;             // Null: the answer alone.
};

}  // namespace coderunner::sandboxes

#endif  // CODERUNNER_SANDBOXES_SANDBOX_SPEC_H_
