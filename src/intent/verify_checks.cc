#include "verify_checks.h"

#include <algorithm>
#include <cctype>

#include "code_extract.h"
#include "coderunner/common/utf8.h"
#include "line_text.h"

namespace coderunner::intent {
namespace {

// Runs the program (the n words after n and out) with its stdout kept in
// $out, then, if it exited 0, the rest (its checks) but the last word, the
// run's marker; see verify_checks.h. The marker comes last, as the job's
// argument: the command, and so a pooled container's shape, stays the same
// from run to run. A program killed by a signal leaves the driver the same
// way, so that the run ends as the program did.
constexpr char kDriver[] = R"(n=$1 out=$2 m=${!#}
set -- "${@:3:$#-3}"
"${@:1:n}" >"$out"
rc=$?
cat -- "$out"
if ((rc != 0)); then
  ((rc > 128)) && kill -n $((rc - 128)) $$
  exit "$rc"
fi
printf '\n%s\n' "$m"
"${@:n+1}" 2>&1
printf '\n%s exit %d\n' "$m" "$?"
)";

// Bounds on what one run's checks may report: the record and the next
// prompt carry them.
constexpr size_t kMaxChecks = 100;
constexpr size_t kMaxNameBytes = 200;
constexpr size_t kMaxDetailBytes = 500;
constexpr size_t kMaxChecksOutputBytes = 16 << 10;

std::string Trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// At most `n` bytes of `s`, cut at a character's end, as valid UTF-8.
std::string Bounded(std::string_view s, size_t n) {
  std::string_view head = s.substr(0, std::min(s.size(), n));
  return SanitizeUtf8(head.substr(0, CompleteUtf8Prefix(head)));
}

// "CHECK PASS example <name>" or "CHECK FAIL property <name> | <detail>".
std::optional<CheckResult> ReadCheckLine(std::string_view raw) {
  std::string line = Trimmed(raw);
  if (line.rfind("CHECK ", 0) != 0) return std::nullopt;
  std::string_view rest = std::string_view(line).substr(6);
  auto word = [&rest]() {
    size_t b = rest.find_first_not_of(' ');
    if (b == std::string_view::npos) return std::string();
    size_t e = rest.find(' ', b);
    std::string w(rest.substr(b, e == std::string_view::npos ? e : e - b));
    rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 1);
    return Lower(w);
  };
  std::string verdict = word();
  std::string kind = word();
  if ((verdict != "pass" && verdict != "fail") || (kind != "example" && kind != "property")) {
    return std::nullopt;
  }
  CheckResult r;
  r.passed = verdict == "pass";
  r.kind = kind == "example" ? CheckKind::kExample : CheckKind::kProperty;
  size_t bar = rest.find(" | ");
  r.name = Bounded(Trimmed(rest.substr(0, bar)), kMaxNameBytes);
  if (bar != std::string_view::npos)
    r.detail = Bounded(Trimmed(rest.substr(bar + 3)), kMaxDetailBytes);
  if (r.name.empty()) r.name = "(unnamed)";
  return r;
}

// The first non-blank line of `code` is a comment saying "checks".
bool MarkedAsChecks(std::string_view code) {
  size_t pos = 0;
  while (pos < code.size()) {
    size_t nl = code.find('\n', pos);
    std::string_view line = code.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? code.size() : nl + 1;
    if (IsBlank(line)) continue;
    std::string t = Trimmed(line);
    size_t skip = t.rfind("//", 0) == 0 ? 2 : t.rfind("#", 0) == 0 ? 1 : 0;
    if (skip == 0) return false;
    return Lower(Trimmed(std::string_view(t).substr(skip))).rfind("checks", 0) == 0;
  }
  return false;
}

}  // namespace

const char* VerifyModeName(VerifyMode mode) {
  switch (mode) {
    case VerifyMode::kOff:
      return "off";
    case VerifyMode::kChecks:
      return "checks";
    case VerifyMode::kFull:
      return "full";
  }
  return "off";
}

std::optional<VerifyMode> ParseVerifyMode(std::string_view name) {
  for (VerifyMode m : {VerifyMode::kOff, VerifyMode::kChecks, VerifyMode::kFull}) {
    if (name == VerifyModeName(m)) return m;
  }
  return std::nullopt;
}

const char* CheckKindName(CheckKind kind) {
  switch (kind) {
    case CheckKind::kExample:
      return "example";
    case CheckKind::kProperty:
      return "property";
    case CheckKind::kJudge:
      return "judge";
  }
  return "example";
}

bool ChecksReport::Broken() const {
  return checks_ran && (checks_exit_code != 0 || checks.empty());
}

bool ChecksReport::AllPassed() const {
  return checks_ran && !Broken() &&
         std::all_of(checks.begin(), checks.end(), [](const CheckResult& c) { return c.passed; });
}

std::vector<std::string> VerifyCommand(const std::vector<std::string>& language_command,
                                       const std::string& checks_path) {
  std::vector<std::string> cmd = {"bash",
                                  "-c",
                                  kDriver,
                                  "coderunner-verify",
                                  std::to_string(language_command.size()),
                                  kProgramOutputPath};
  cmd.insert(cmd.end(), language_command.begin(), language_command.end());
  for (const auto& part : language_command) cmd.push_back(part == "{file}" ? checks_path : part);
  return cmd;
}

ChecksReport ReadChecksReport(std::string_view stdout_data, std::string_view marker) {
  ChecksReport report;
  const std::string begin = "\n" + std::string(marker) + "\n";
  size_t at = stdout_data.find(begin);
  if (marker.empty() || at == std::string_view::npos) {
    report.program_stdout = std::string(stdout_data);
    return report;
  }
  report.program_stdout = std::string(stdout_data.substr(0, at));
  report.checks_ran = true;
  std::string_view rest = stdout_data.substr(at + begin.size());
  const std::string end = "\n" + std::string(marker) + " exit ";
  size_t e = rest.rfind(end);
  std::string_view lines = rest;
  if (e != std::string_view::npos) {
    lines = rest.substr(0, e);
    std::string code = Trimmed(rest.substr(e + end.size()));
    if (!code.empty() && std::all_of(code.begin(), code.end(), ::isdigit) && code.size() < 4) {
      report.checks_exit_code = std::stoi(code);
    }
  }
  report.checks_output = Bounded(lines, kMaxChecksOutputBytes);
  for (size_t pos = 0; pos < lines.size() && report.checks.size() < kMaxChecks;) {
    size_t nl = lines.find('\n', pos);
    std::string_view line = lines.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? lines.size() : nl + 1;
    if (auto check = ReadCheckLine(line)) report.checks.push_back(std::move(*check));
  }
  return report;
}

std::string ChecksFileName(std::string_view program_file) {
  size_t dot = program_file.rfind('.');
  return dot == std::string_view::npos ? "checks"
                                       : "checks" + std::string(program_file.substr(dot));
}

std::string VerifiedSummary(const std::vector<CheckResult>& checks) {
  int examples = 0, properties = 0;
  bool judged = false;
  for (const auto& c : checks) {
    if (!c.passed) continue;
    if (c.kind == CheckKind::kExample) ++examples;
    if (c.kind == CheckKind::kProperty) ++properties;
    if (c.kind == CheckKind::kJudge) judged = true;
  }
  auto count = [](int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::string s;
  if (examples > 0) s = count(examples, "example", "examples");
  if (properties > 0) {
    s += (s.empty() ? "" : " and ") + count(properties, "property", "properties");
  }
  s = s.empty() ? "no check passed" : s + " passed";
  if (judged) s += "; the model judged that the output answers the question as asked";
  return s;
}

nlohmann::json ChecksJson(const std::vector<CheckResult>& checks) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : checks) {
    out.push_back({{"kind", CheckKindName(c.kind)},
                   {"name", c.name},
                   {"passed", c.passed},
                   {"detail", c.detail}});
  }
  return out;
}

std::vector<CheckResult> ChecksFromJson(const nlohmann::json& checks) {
  std::vector<CheckResult> out;
  if (!checks.is_array()) return out;
  for (const auto& c : checks) {
    if (!c.is_object()) continue;
    CheckResult r;
    const std::string kind = c.value("kind", "");
    for (CheckKind k : {CheckKind::kExample, CheckKind::kProperty, CheckKind::kJudge}) {
      if (kind == CheckKindName(k)) r.kind = k;
    }
    r.name = c.value("name", "");
    r.passed = c.value("passed", false);
    r.detail = c.value("detail", "");
    out.push_back(std::move(r));
  }
  return out;
}

ProgramAndChecks SplitProgramAndChecks(std::string_view reply, std::string_view language) {
  ProgramAndChecks out;
  for (std::string& block : ExtractCodeBlocks(reply, language)) {
    std::string& slot = MarkedAsChecks(block) ? out.checks : out.program;
    if (slot.empty()) slot = std::move(block);
  }
  for (size_t pos = 0; pos < reply.size();) {
    size_t nl = reply.find('\n', pos);
    std::string line = Trimmed(reply.substr(pos, nl == std::string_view::npos ? nl : nl - pos));
    pos = nl == std::string_view::npos ? reply.size() : nl + 1;
    if (Lower(line).rfind("wrong check:", 0) == 0) {
      out.wrong_check_reason = Bounded(Trimmed(std::string_view(line).substr(12)), kMaxDetailBytes);
      break;
    }
  }
  return out;
}

}  // namespace coderunner::intent
