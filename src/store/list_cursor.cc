#include "list_cursor.h"

#include <charconv>
#include <system_error>

namespace coderunner::store {

std::string FormatListCursor(const store::JobRecord& job) {
  return std::to_string(job.created_at_ms) + "_" + job.id;
}

std::optional<ListCursor> ParseListCursor(std::string_view text) {
  size_t sep = text.find('_');
  if (sep == std::string_view::npos || sep == 0 || sep + 1 == text.size()) return std::nullopt;
  std::string_view ms = text.substr(0, sep);
  size_t digits_from = ms[0] == '-' ? 1 : 0;
  if (digits_from == ms.size()) return std::nullopt;
  for (size_t i = digits_from; i < ms.size(); ++i) {
    if (ms[i] < '0' || ms[i] > '9') return std::nullopt;
  }
  ListCursor cursor;
  auto [end, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), cursor.created_at_ms);
  if (ec != std::errc() || end != ms.data() + ms.size()) return std::nullopt;
  std::string_view id = text.substr(sep + 1);
  for (char c : id) {
    if (c <= ' ' || c > '~') return std::nullopt;  // Printable ASCII only.
  }
  cursor.id = std::string(id);
  return cursor;
}

}  // namespace coderunner::store
