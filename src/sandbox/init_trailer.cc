#include "coderunner/sandbox/init_trailer.h"

#include <nlohmann/json.hpp>

namespace coderunner::sandbox {

// Must match the format in src/init/coderunner_init.c.
constexpr std::string_view kMarker =
    "\x1e"
    "coderunner-init ";

std::optional<InitTrailer> ParseInitTrailer(std::string_view tail) {
  if (tail.empty() || tail.back() != '\n') return std::nullopt;
  size_t pos = tail.rfind(kMarker);
  if (pos == std::string_view::npos) return std::nullopt;
  std::string_view json_text = tail.substr(pos + kMarker.size());
  json_text.remove_suffix(1);
  auto j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  auto get = [&](const char* key, int64_t fallback) -> int64_t {
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
  };
  InitTrailer t;
  t.exit_code = static_cast<int>(get("exit_code", 0));
  t.signal = static_cast<int>(get("signal", 0));
  t.wall_us = get("wall_us", 0);
  t.cpu_us = get("cpu_us", -1);
  t.memory_peak_bytes = get("memory_peak_bytes", -1);
  t.oom_kills = get("oom_kills", -1);
  t.length = tail.size() - pos;
  return t;
}

}  // namespace coderunner::sandbox
