// Fuzzes demultiplexing of the engine's attach stream into capped outputs,
// fed in chunks whose sizes also come from the input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "coderunner/engine/stream_demux.h"
#include "coderunner/isolation/capped_output.h"
#include "coderunner/isolation/init_trailer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t chunk = 1 + data[0] % 64;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  coderunner::isolation::CappedOutput out(100), err(100);
  coderunner::engine::StreamDemuxer demux(
      [&](coderunner::engine::StreamId id, std::string_view bytes) {
        (id == coderunner::engine::StreamId::kStderr ? err : out).Append(bytes);
      });
  while (!rest.empty()) {
    size_t n = rest.size() < chunk ? rest.size() : chunk;
    if (!demux.Feed(rest.substr(0, n)).ok()) break;
    rest.remove_prefix(n);
  }
  if (auto t = coderunner::isolation::ParseInitTrailer(err.tail())) err.DropSuffix(t->length);
  if (out.kept().size() > 100 || err.kept().size() > 100) __builtin_trap();
  return 0;
}
