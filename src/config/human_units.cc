#include "human_units.h"

#include <cctype>
#include <limits>
#include <span>
#include <string>

namespace coderunner::config {
namespace {

constexpr int64_t kKiB = int64_t{1} << 10;

// A unit suffix (lower case) and what one of it is worth.
struct Suffix {
  const char* name;
  int64_t scale;
};

// "" is the plain number: bytes.
constexpr Suffix kSizeSuffixes[] = {
    {"", 1},
    {"b", 1},
    {"k", kKiB},
    {"kb", kKiB},
    {"kib", kKiB},
    {"m", kKiB << 10},
    {"mb", kKiB << 10},
    {"mib", kKiB << 10},
    {"g", kKiB << 20},
    {"gb", kKiB << 20},
    {"gib", kKiB << 20},
    {"t", kKiB << 30},
    {"tb", kKiB << 30},
    {"tib", kKiB << 30},
};
constexpr char kSizeUnits[] = "B, K, KB, KiB, M, MB, MiB, G, GB, GiB, T, TB or TiB";

constexpr Suffix kDurationSuffixes[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};
constexpr char kDurationUnits[] = "ms, s, m or h";

// Most fraction digits read; more cannot make a whole result of any unit.
constexpr int kMaxFractionDigits = 18;

Status Invalid(const std::string& why) { return InvalidArgumentError(why, "invalid_config"); }

// `text` = <digits>[.<digits>]<suffix>, scaled by the suffix's worth (a
// suffix "" is worth `plain`). `what` names the result's unit in errors.
StatusOr<int64_t> Scale(std::string_view text, std::span<const Suffix> suffixes, int64_t plain,
                        const char* units, const char* what) {
  if (text.empty()) return Invalid("is empty");
  if (text.front() == '-') return Invalid("must not be negative, got '" + std::string(text) + "'");
  using Wide = unsigned __int128;
  constexpr Wide kMax = std::numeric_limits<int64_t>::max();
  const std::string shown(text);
  size_t i = 0;
  Wide whole = 0;
  bool too_large = false;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    whole = whole * 10 + static_cast<unsigned>(text[i] - '0');
    if (whole > kMax) {
      too_large = true;
      whole = kMax + 1;
    }
  }
  if (i == 0) return Invalid("expected a number with an optional unit, got '" + shown + "'");
  Wide fraction = 0;
  Wide ten_to_digits = 1;
  if (i < text.size() && text[i] == '.') {
    size_t start = ++i;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      if (i - start >= kMaxFractionDigits)
        return Invalid("too many fraction digits in '" + shown + "'");
      fraction = fraction * 10 + static_cast<unsigned>(text[i] - '0');
      ten_to_digits *= 10;
    }
    if (i == start) return Invalid("expected digits after '.' in '" + shown + "'");
  }
  std::string suffix;
  for (char ch : text.substr(i))
    suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (!suffix.empty() && suffix.front() == ' ') {
    return Invalid("no space allowed between number and unit in '" + shown + "'");
  }
  int64_t scale = 0;
  for (const Suffix& s : suffixes) {
    if (suffix == s.name) scale = s.scale;
  }
  if (suffix.empty() && scale == 0) scale = plain;
  if (scale == 0) {
    return Invalid("unknown unit '" + std::string(text.substr(i)) + "' in '" + shown +
                   "' (units: " + units + ")");
  }
  Wide frac_scaled = fraction * static_cast<Wide>(scale);
  if (frac_scaled % ten_to_digits != 0) {
    return Invalid("'" + shown + "' is not a whole number of " + what);
  }
  Wide total = whole * static_cast<Wide>(scale) + frac_scaled / ten_to_digits;
  if (too_large || total > kMax) return Invalid("'" + shown + "' is too large");
  return static_cast<int64_t>(total);
}

}  // namespace

StatusOr<int64_t> ParseSize(std::string_view text) {
  return Scale(text, kSizeSuffixes, 1, kSizeUnits, "bytes");
}

StatusOr<int64_t> ParseDurationMs(std::string_view text, int64_t plain_unit_ms) {
  return Scale(text, kDurationSuffixes, plain_unit_ms, kDurationUnits, "milliseconds");
}

}  // namespace coderunner::config
