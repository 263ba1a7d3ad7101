// Fuzzes the service's reading of what coderunner-init writes at the end of
// stderr: bytes that come from the job's container, so from the job. The
// first byte picks a chunk size; the rest is the stream. Checks, besides
// ASan/UBSan: ParseInitTrailer never claims more than the input; the
// TrailerFilter passes through exactly the input minus at most one final
// trailer, and the same bytes however the stream is chunked.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "coderunner/isolation/init_trailer.h"

namespace {

using coderunner::isolation::ParseInitTrailer;
using coderunner::isolation::TrailerFilter;

std::string Filtered(std::string_view stream, size_t chunk) {
  std::string out;
  TrailerFilter filter;
  auto emit = [&](std::string_view bytes) { out.append(bytes); };
  while (!stream.empty()) {
    size_t n = stream.size() < chunk ? stream.size() : chunk;
    filter.Feed(stream.substr(0, n), emit);
    stream.remove_prefix(n);
  }
  filter.Finish(emit);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t chunk = 1 + data[0] % 64;
  std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (auto t = ParseInitTrailer(stream); t && t->length > stream.size()) __builtin_trap();
  std::string whole = Filtered(stream, stream.size() + 1);
  if (Filtered(stream, chunk) != whole) __builtin_trap();
  if (stream.substr(0, whole.size()) != whole) __builtin_trap();
  std::string_view withheld = stream.substr(whole.size());
  if (!withheld.empty()) {
    auto t = ParseInitTrailer(withheld);
    if (!t || t->length != withheld.size()) __builtin_trap();
  }
  return 0;
}
