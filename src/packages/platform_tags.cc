#include "platform_tags.h"

#include <algorithm>
#include <regex>

namespace coderunner::packages {
namespace {

// The oldest glibc a manylinux tag names (PEP 600: manylinux1's).
constexpr int kOldestGlibcMinor = 5;

// The legacy name of a glibc's tag (PEP 599, 571, 513), if it has one.
const char* LegacyName(int glibc_minor) {
  switch (glibc_minor) {
    case 17:
      return "manylinux2014";
    case 12:
      return "manylinux2010";
    case kOldestGlibcMinor:
      return "manylinux1";
    default:
      return nullptr;
  }
}

void Add(std::vector<std::string>& out, std::string tag) {
  if (std::find(out.begin(), out.end(), tag) == out.end()) out.push_back(std::move(tag));
}

}  // namespace

std::vector<std::string> ExpandPlatforms(const std::vector<std::string>& platforms) {
  static const std::regex kManylinux(R"(manylinux_2_(\d{1,3})_([A-Za-z0-9_]+))");
  std::vector<std::string> out;
  for (const auto& platform : platforms) {
    std::smatch m;
    if (!std::regex_match(platform, m, kManylinux)) {
      Add(out, platform);
      continue;
    }
    const int newest = std::stoi(m[1].str());
    const std::string arch = m[2].str();
    for (int minor = newest; minor >= kOldestGlibcMinor; --minor) {
      Add(out, "manylinux_2_" + std::to_string(minor) + "_" + arch);
      if (const char* legacy = LegacyName(minor)) Add(out, std::string(legacy) + "_" + arch);
    }
  }
  return out;
}

}  // namespace coderunner::packages
