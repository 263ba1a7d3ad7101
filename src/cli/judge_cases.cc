#include "judge_cases.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "exit_codes.h"

namespace coderunner::cli {
namespace {

namespace fs = std::filesystem;

Status Bad(const std::string& why) { return InvalidArgumentError(why, kReasonUsage); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (IsDigit(a[i]) && IsDigit(b[j])) {
      size_t ei = i, ej = j;
      while (ei < a.size() && IsDigit(a[ei])) ++ei;
      while (ej < b.size() && IsDigit(b[ej])) ++ej;
      // Leading zeros do not count; then the longer run is the larger number.
      size_t zi = i, zj = j;
      while (zi + 1 < ei && a[zi] == '0') ++zi;
      while (zj + 1 < ej && b[zj] == '0') ++zj;
      if (ei - zi != ej - zj) return ei - zi < ej - zj;
      int c = a.compare(zi, ei - zi, b, zj, ej - zj);
      if (c != 0) return c < 0;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;
}

StatusOr<std::vector<CaseFiles>> FindCases(const std::string& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Bad("cannot read the cases directory '" + dir + "': " + ec.message());
  std::map<std::string, CaseFiles> by_name;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Bad("cannot read the cases directory '" + dir + "': " + ec.message());
    if (!it->is_regular_file(ec)) continue;
    const fs::path& p = it->path();
    const std::string ext = p.extension().string();
    if (ext != ".in" && ext != ".out" && ext != ".ans") continue;
    CaseFiles& c = by_name[p.stem().string()];
    c.name = p.stem().string();
    if (ext == ".in") {
      c.input = p.string();
    } else if (!c.expected.empty()) {
      return Bad("case '" + c.name + "' has both a .out and an .ans file");
    } else {
      c.expected = p.string();
    }
  }
  std::vector<CaseFiles> out;
  for (auto& [name, c] : by_name) {
    if (c.expected.empty()) return Bad("case '" + name + "' has no " + name + ".out");
    out.push_back(std::move(c));
  }
  if (out.empty()) return Bad("no cases in '" + dir + "' (NAME.in with NAME.out or NAME.ans)");
  std::sort(out.begin(), out.end(),
            [](const CaseFiles& a, const CaseFiles& b) { return NaturalLess(a.name, b.name); });
  return out;
}

}  // namespace coderunner::cli
