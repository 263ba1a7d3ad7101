#include "coderunner/isolation/init_trailer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "coderunner/common/bounded_json.h"

namespace coderunner::isolation {

// Must match the format in src/init/coderunner_init.c.
constexpr std::string_view kMarker =
    "\x1e"
    "coderunner-init ";

std::string StdoutEndMarker(std::string_view nonce) {
  return std::string(kMarker) + "{\"eof\":\"" + std::string(nonce) + "\"}\n";
}

std::optional<InitTrailer> ParseInitTrailer(std::string_view tail) {
  if (tail.empty() || tail.back() != '\n') return std::nullopt;
  size_t pos = tail.rfind(kMarker);
  if (pos == std::string_view::npos) return std::nullopt;
  std::string_view json_text = tail.substr(pos + kMarker.size());
  json_text.remove_suffix(1);
  // The job writes to the same stderr: the line may be anything it printed.
  // init's trailer is one flat object of a few hundred bytes.
  JsonBounds bounds;
  bounds.max_depth = 1;
  bounds.max_bytes = 4096;
  auto j = ParseBoundedJsonOrDiscarded(json_text, bounds);
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
  t.output_bytes = get("output_bytes", -1);
  t.output_used_bytes = get("output_used_bytes", -1);
  t.output_entries = get("output_entries", -1);
  if (auto v = j.find("output_violation"); v != j.end() && v->is_string()) {
    t.output_violation = v->get<std::string>();
  }
  t.output_rolled_back = get("output_rolled_back", 0) != 0;
  t.stopped = get("stopped", 0) != 0;
  t.reusable = get("reusable", 0) != 0;
  if (auto v = j.find("start_error"); v != j.end() && v->is_string()) {
    t.start_error = v->get<std::string>();
  }
  t.timed_out = get("timed_out", 0) != 0;
  if (auto v = j.find("eof"); v != j.end() && v->is_string()) t.eof = v->get<std::string>();
  t.length = tail.size() - pos;
  return t;
}

size_t TrailerFilter::FirstCandidate() {
  for (size_t at = held_.find('\x1e'); at != std::string::npos; at = held_.find('\x1e', at + 1)) {
    if (CouldBeTrailer(at)) return at;
  }
  return held_.size();
}

bool TrailerFilter::CouldBeTrailer(size_t at) {
  std::string_view rest = std::string_view(held_).substr(at);
  // A trailer is short; anything held longer than this is ordinary output.
  if (rest.size() > kMaxTrailer) return false;
  size_t n = std::min(rest.size(), kMarker.size());
  if (rest.substr(0, n) != kMarker.substr(0, n)) return false;
  // Only the last line can be the trailer: a newline may end it, not more.
  // What an earlier Feed found free of newlines is not searched again.
  size_t newline = rest.find('\n', at == 0 ? newline_free_ : 0);
  candidate_newline_free_ = newline == std::string_view::npos ? rest.size() : newline;
  return newline == std::string_view::npos || newline + 1 == rest.size();
}

void TrailerFilter::Feed(std::string_view bytes, const Emit& emit) {
  if (bytes.empty()) return;
  held_.append(bytes);
  // Each byte is looked at a bounded number of times: a "\x1e" that cannot
  // start the marker fails within its first bytes, and full markers are at
  // least kMarker.size() apart, each searched for a newline over at most
  // kMaxTrailer bytes (once: newline_free_ carries over to the next Feed).
  size_t start = FirstCandidate();
  if (start > 0) emit(std::string_view(held_).substr(0, start));
  held_.erase(0, start);
  newline_free_ = held_.empty() ? 0 : candidate_newline_free_;
}

void TrailerFilter::Finish(const Emit& emit) {
  // Only the final trailer is withheld; whatever precedes it (even text
  // that looked like the start of one) is output.
  auto t = ParseInitTrailer(held_);
  size_t keep = t ? held_.size() - t->length : held_.size();
  if (keep > 0) emit(std::string_view(held_).substr(0, keep));
  held_.clear();
  newline_free_ = 0;
}

}  // namespace coderunner::isolation
