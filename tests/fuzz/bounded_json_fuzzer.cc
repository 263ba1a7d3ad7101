// Fuzzes ParseBoundedJson, the parser of every request body and of what
// hostile peers send (the model, a job's trailer line, the service as the
// CLI reads it). Besides never crashing, hanging or leaking, it must agree
// with nlohmann's own parser on what is JSON, never return a value deeper
// than its bound, and refuse exactly the input longer than its size bound.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/utf8.h"

namespace {

using nlohmann::json;

constexpr int kMaxDepth = 8;
constexpr int64_t kMaxBytes = 2048;

// Deepest nesting of arrays and objects in `v`, without recursion.
int DepthOf(const json& v) {
  int deepest = 0;
  std::vector<std::pair<const json*, int>> todo = {{&v, 0}};
  while (!todo.empty()) {
    auto [j, depth] = todo.back();
    todo.pop_back();
    if (!j->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const auto& child : *j) todo.emplace_back(&child, depth + 1);
  }
  return deepest;
}

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  coderunner::JsonBounds bounds;
  bounds.max_depth = kMaxDepth;
  bounds.max_bytes = kMaxBytes;
  auto got = coderunner::ParseBoundedJson(text, bounds);
  if (static_cast<int64_t>(size) > kMaxBytes) {
    Check(!got.ok() && got.status().reason() == coderunner::kJsonTooLarge);
    return 0;
  }
  if (text.find('\0') != std::string_view::npos) {
    // nlohmann stops at a NUL and may accept the value before it; JSON has
    // no raw NUL, and we refuse it.
    Check(!got.ok() && got.status().reason() == coderunner::kInvalidJson);
    return 0;
  }
  // nlohmann builds any depth (iteratively); only DepthOf and destruction
  // touch it, and both are iterative.
  json reference = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (got.ok()) {
    Check(DepthOf(*got) <= kMaxDepth);
    Check(!reference.is_discarded() && reference == *got);  // Both at most kMaxDepth deep.
    // What the service does next with an accepted body: dump and re-read.
    std::string dumped = got->dump();
    auto again = coderunner::ParseBoundedJson(dumped, coderunner::JsonBounds{});
    Check(again.ok() && *again == *got);
    return 0;
  }
  const std::string& reason = got.status().reason();
  Check(got.status().message().size() < 1024);
  Check(coderunner::IsValidUtf8(got.status().message()));
  if (reason == coderunner::kJsonTooDeep) {
    // Refused while reading: the input nests deeper than the bound, though
    // it may be malformed further on.
    Check(reference.is_discarded() || DepthOf(reference) > kMaxDepth);
  } else {
    Check(reason == coderunner::kInvalidJson && reference.is_discarded());
  }
  return 0;
}
