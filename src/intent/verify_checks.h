// The verify step's pure parts: its modes, how a program and the checks
// the model wrote for it share one run, what those checks report, and
// what the answer says was verified.
//
// A verify run is one job: a driver (bash, in every image) runs the
// program as its language's command would; its stdout goes to
// kProgramOutputPath and then to the job's stdout. Only if it exits 0 do
// the checks run, the same command on the checks file, in the same
// container under the same limits: after a line holding the run's marker,
// their stdout and stderr, then the marker, "exit" and their exit code.
// Each check prints one line:
//   CHECK PASS example <name>
//   CHECK FAIL property <name> | <what it saw>
// The marker keeps an honest program's output apart from its checks; it
// is no guard against a program that wants to forge its own verdict (the
// checks run as its uid): verification catches wrong code, containment is
// the sandbox's.
#ifndef CODERUNNER_INTENT_VERIFY_CHECKS_H_
#define CODERUNNER_INTENT_VERIFY_CHECKS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coderunner::intent {

// intents.verify, tiers.<name>.intent_verify and a request's "verify":
// off (no checks), checks (the model's checks run with the program), full
// (checks, then the model judges whether the output answers the question
// as asked).
enum class VerifyMode { kOff, kChecks, kFull };

// "off", "checks", "full".
const char* VerifyModeName(VerifyMode mode);
// The mode named `name`; nullopt for anything else.
std::optional<VerifyMode> ParseVerifyMode(std::string_view name);

// Where the driver keeps the program's stdout for its checks.
inline constexpr char kProgramOutputPath[] = "/tmp/program_stdout.txt";

enum class CheckKind { kExample, kProperty, kJudge };

// "example", "property", "judge".
const char* CheckKindName(CheckKind kind);

struct CheckResult {
  CheckKind kind = CheckKind::kExample;
  std::string name;
  bool passed = false;
  std::string detail;  // What a failed check saw ("" if it said nothing).
};

// What one verify run's stdout held.
struct ChecksReport {
  std::string program_stdout;  // Everything before the marker line.
  bool checks_ran = false;     // The marker line was there.
  int checks_exit_code = -1;   // -1 if the checks never reported an end.
  std::vector<CheckResult> checks;
  std::string checks_output;  // The checks' own lines, as they printed them.
  bool cached = false;        // Read from the result cache, not run now.

  // The checks ran but did not say anything usable: they exited non-zero
  // (a crash, an exception, an import that failed) or reported no check.
  bool Broken() const;
  bool AllPassed() const;
};

// The job command of a verify run of a program whose language runs it as
// `language_command` ("{file}" = the program): the checks at
// `checks_path` run with the same command. The run's own marker is its
// last argument (the job's args: a pooled container's shape does not
// change with it).
std::vector<std::string> VerifyCommand(const std::vector<std::string>& language_command,
                                       const std::string& checks_path);

// Reads a verify run's stdout (see the top).
ChecksReport ReadChecksReport(std::string_view stdout_data, std::string_view marker);

// The checks file's name for a program file: main.py -> checks.py.
std::string ChecksFileName(std::string_view program_file);

// What passed, as the answer states it: "3 examples and 2 properties
// passed"; "the answer matches the question" is added for a judge.
std::string VerifiedSummary(const std::vector<CheckResult>& checks);

// [{"kind","name","passed","detail"}].
nlohmann::json ChecksJson(const std::vector<CheckResult>& checks);
// ChecksJson's checks back; an entry that is not an object is skipped.
std::vector<CheckResult> ChecksFromJson(const nlohmann::json& checks);

// A reply to a request for checks, or for a fix after checks failed, may
// hold a program and a checks program: the checks are the block whose
// first line is a comment saying "checks" ("# checks", "// checks").
struct ProgramAndChecks {
  std::string program;  // "" if the reply held none.
  std::string checks;   // "" if the reply held none.
  // After "Wrong check:" on a line of its own outside the blocks: why the
  // model changed its checks ("" if it did not say).
  std::string wrong_check_reason;
};
ProgramAndChecks SplitProgramAndChecks(std::string_view reply, std::string_view language);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_VERIFY_CHECKS_H_
