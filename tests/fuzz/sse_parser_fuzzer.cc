// Fuzzes the CLI's text/event-stream parser (src/cli/sse_parser.cc) on
// bytes from the server or anything between. The first byte picks a chunk
// size and how many events the handler takes before it asks to stop; the
// rest is the stream. Checks, besides ASan/UBSan: the events (and where
// the parser stops) do not depend on how the stream is chunked.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/sse_parser.h"

namespace {

using Events = std::vector<std::pair<std::string, std::string>>;

Events Parse(std::string_view stream, size_t chunk, size_t stop_after) {
  Events events;
  coderunner::cli::SseParser parser([&](const std::string& event, const std::string& data) {
    events.emplace_back(event, data);
    return events.size() < stop_after;
  });
  while (!stream.empty()) {
    size_t n = stream.size() < chunk ? stream.size() : chunk;
    bool more = parser.Feed(stream.substr(0, n));
    stream.remove_prefix(n);
    if (!more) {
      // Stopped: every later chunk is refused.
      if (!stream.empty() && parser.Feed(stream)) __builtin_trap();
      break;
    }
  }
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t chunk = 1 + data[0] % 16;
  size_t stop_after = 1 + data[0] / 16;
  std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  Events whole = Parse(stream, stream.size() + 1, stop_after);
  if (whole.size() > stop_after) __builtin_trap();
  if (Parse(stream, chunk, stop_after) != whole) __builtin_trap();
  return 0;
}
