#include "intent/verify_checks.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace coderunner::intent {
namespace {

constexpr char kMarker[] = "coderunner-verify-0123abcd";

std::string M(const std::string& rest = "") { return std::string(kMarker) + rest; }

struct ReportCase {
  const char* name;
  std::string stdout_data;
  std::string program_stdout;
  bool checks_ran;
  int exit_code;
  size_t checks;
  bool broken;
  bool all_passed;
};

TEST(VerifyChecksTest, AReportSplitsTheProgramsOutputFromItsChecks) {
  const std::vector<ReportCase> cases = {
      {"no marker: the program never finished", "partial\n", "partial\n", false, -1, 0, false,
       false},
      {"all pass",
       "42\n\n" + M() + "\nCHECK PASS example one\nCHECK PASS property two\n\n" + M(" exit 0") +
           "\n",
       "42\n", true, 0, 2, false, true},
      {"one fails",
       "42\n\n" + M() + "\nCHECK PASS example one\nCHECK FAIL property two | saw 3\n\n" +
           M(" exit 0") + "\n",
       "42\n", true, 0, 2, false, false},
      {"a crash after a pass is broken",
       "42\n\n" + M() + "\nCHECK PASS example one\nTraceback\n\n" + M(" exit 1") + "\n", "42\n",
       true, 1, 1, true, false},
      {"no check reported is broken", "42\n\n" + M() + "\nnothing\n\n" + M(" exit 0") + "\n",
       "42\n", true, 0, 0, true, false},
      {"no end line (cut at the cap) is broken", "42\n\n" + M() + "\nCHECK PASS example one\n",
       "42\n", true, -1, 1, true, false},
      {"output without a final newline",
       "42\n" + M() + "\nCHECK PASS example one\n\n" + M(" exit 0") + "\n", "42", true, 0, 1, false,
       true},
      {"lines that are not checks are ignored",
       "x\n\n" + M() +
           "\nCHECK MAYBE example a\nCHECK PASS sample b\n  CHECK PASS example c  \n\n" +
           M(" exit 0") + "\n",
       "x\n", true, 0, 1, false, true},
  };
  for (const auto& c : cases) {
    ChecksReport r = ReadChecksReport(c.stdout_data, kMarker);
    EXPECT_EQ(r.program_stdout, c.program_stdout) << c.name;
    EXPECT_EQ(r.checks_ran, c.checks_ran) << c.name;
    EXPECT_EQ(r.checks_exit_code, c.exit_code) << c.name;
    EXPECT_EQ(r.checks.size(), c.checks) << c.name;
    EXPECT_EQ(r.Broken(), c.broken) << c.name;
    EXPECT_EQ(r.AllPassed(), c.all_passed) << c.name;
  }
}

TEST(VerifyChecksTest, ACheckLineGivesItsKindNameAndDetail) {
  ChecksReport r = ReadChecksReport(
      "\n" + M() +
          "\nCHECK FAIL property sorted, largest first | got [1, 9]\nCHECK pass Example e\n" +
          "CHECK PASS example \nCHECK FAIL example " + std::string(300, 'n') + " | " +
          std::string(900, 'd') + "\n\n" + M(" exit 0") + "\n",
      kMarker);
  ASSERT_EQ(r.checks.size(), 4u);
  EXPECT_EQ(r.checks[0].kind, CheckKind::kProperty);
  EXPECT_EQ(r.checks[0].name, "sorted, largest first");
  EXPECT_EQ(r.checks[0].detail, "got [1, 9]");
  EXPECT_FALSE(r.checks[0].passed);
  EXPECT_EQ(r.checks[1].kind, CheckKind::kExample);  // Words in any case.
  EXPECT_TRUE(r.checks[1].passed);
  EXPECT_EQ(r.checks[2].name, "(unnamed)");
  EXPECT_EQ(r.checks[3].name.size(), 200u);  // Bounded: the record and the prompt carry it.
  EXPECT_EQ(r.checks[3].detail.size(), 500u);
}

TEST(VerifyChecksTest, NamesAndSummaries) {
  EXPECT_EQ(ChecksFileName("main.py"), "checks.py");
  EXPECT_EQ(ChecksFileName("main.ts"), "checks.ts");
  EXPECT_EQ(ChecksFileName("main"), "checks");
  for (const char* mode : {"off", "checks", "full"}) {
    ASSERT_TRUE(ParseVerifyMode(mode)) << mode;
    EXPECT_STREQ(VerifyModeName(*ParseVerifyMode(mode)), mode);
  }
  EXPECT_FALSE(ParseVerifyMode("on"));
  EXPECT_FALSE(ParseVerifyMode("Checks"));
  const struct {
    std::vector<CheckResult> checks;
    const char* summary;
  } summaries[] = {
      {{{CheckKind::kExample, "a", true, ""}}, "1 example passed"},
      {{{CheckKind::kExample, "a", true, ""},
        {CheckKind::kExample, "b", true, ""},
        {CheckKind::kProperty, "c", true, ""}},
       "2 examples and 1 property passed"},
      {{{CheckKind::kProperty, "c", true, ""}, {CheckKind::kProperty, "d", true, ""}},
       "2 properties passed"},
      {{{CheckKind::kProperty, "c", true, ""}, {CheckKind::kJudge, "j", true, ""}},
       "1 property passed; the model judged that the output answers the question as asked"},
      {{{CheckKind::kExample, "a", false, ""}}, "no check passed"},
  };
  for (const auto& s : summaries) EXPECT_EQ(VerifiedSummary(s.checks), s.summary);
}

TEST(VerifyChecksTest, AReplyMayHoldAProgramAndItsChecks) {
  const struct {
    const char* name;
    const char* language;
    const char* reply;
    const char* program;
    const char* checks;
    const char* reason;
  } cases[] = {
      {"program only", "python", "```python\nprint(1)\n```", "print(1)\n", "", ""},
      {"checks only, with why", "python",
       "Wrong check: 2 + 2 is 4\n\n```python\n# checks\nprint('CHECK PASS example a')\n```", "",
       "# checks\nprint('CHECK PASS example a')\n", "2 + 2 is 4"},
      {"both, checks first", "javascript",
       "```js\n// Checks for it\nconsole.log(1)\n```\n```js\nconsole.log(2)\n```",
       "console.log(2)\n", "// Checks for it\nconsole.log(1)\n", ""},
      {"a comment that is not the marker", "bash", "```bash\n# prints it\necho 1\n```",
       "# prints it\necho 1\n", "", ""},
      {"no fence: the program", "python", "print(3)", "print(3)\n", "", ""},
  };
  for (const auto& c : cases) {
    ProgramAndChecks split = SplitProgramAndChecks(c.reply, c.language);
    EXPECT_EQ(split.program, c.program) << c.name;
    EXPECT_EQ(split.checks, c.checks) << c.name;
    EXPECT_EQ(split.wrong_check_reason, c.reason) << c.name;
  }
}

// The driver under the host's bash, with sh standing in for the language:
// the program's end is the run's, and the checks run only after an exit 0.
struct DriverRun {
  std::string out;
  int status;
};

DriverRun RunDriver(const std::string& program, const std::string& checks) {
  char dir_template[] = "/tmp/verify-driver-XXXXXX";
  std::string dir = mkdtemp(dir_template);
  std::string program_file = dir + "/main.sh", checks_file = dir + "/checks.sh";
  FILE* f = fopen(program_file.c_str(), "w");
  fputs(program.c_str(), f);
  fclose(f);
  f = fopen(checks_file.c_str(), "w");
  fputs(checks.c_str(), f);
  fclose(f);
  std::vector<std::string> cmd = VerifyCommand({"sh", "{file}"}, checks_file);
  for (auto& part : cmd) {
    if (part == "{file}") part = program_file;  // As the container's init does.
    if (part == kProgramOutputPath) part = dir + "/stdout";
  }
  cmd.push_back(kMarker);  // The job's argument.
  int pipe_fds[2];
  EXPECT_EQ(pipe(pipe_fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    std::vector<char*> argv;
    for (auto& part : cmd) argv.push_back(part.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  DriverRun run;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof(buf))) > 0;) run.out.append(buf, n);
  close(pipe_fds[0]);
  waitpid(pid, &run.status, 0);
  std::string rm = "rm -rf " + dir;
  EXPECT_EQ(std::system(rm.c_str()), 0);
  return run;
}

TEST(VerifyChecksTest, TheDriverEndsAsTheProgramAndRunsTheChecksAfterAnExitZero) {
  const std::string checks =
      "echo \"CHECK PASS example saw $(cat \"$(dirname \"$0\")/stdout\")\"\n";
  DriverRun ok = RunDriver("echo 42\n", checks);
  ASSERT_TRUE(WIFEXITED(ok.status) && WEXITSTATUS(ok.status) == 0) << ok.status;
  ChecksReport r = ReadChecksReport(ok.out, kMarker);
  EXPECT_EQ(r.program_stdout, "42\n");
  ASSERT_EQ(r.checks.size(), 1u) << ok.out;
  EXPECT_EQ(r.checks[0].name, "saw 42");
  EXPECT_EQ(r.checks_exit_code, 0);

  DriverRun failed = RunDriver("echo partial; exit 3\n", checks);
  ASSERT_TRUE(WIFEXITED(failed.status)) << failed.status;
  EXPECT_EQ(WEXITSTATUS(failed.status), 3);
  EXPECT_EQ(failed.out, "partial\n");  // No marker: the checks never ran.

  DriverRun killed = RunDriver("echo before; kill -TERM $$\n", checks);
  ASSERT_TRUE(WIFSIGNALED(killed.status)) << killed.status;
  EXPECT_EQ(WTERMSIG(killed.status), SIGTERM);
  EXPECT_EQ(killed.out, "before\n");

  DriverRun broken = RunDriver("echo 1\n", "echo oops >&2; exit 2\n");
  ASSERT_TRUE(WIFEXITED(broken.status) && WEXITSTATUS(broken.status) == 0);
  ChecksReport b = ReadChecksReport(broken.out, kMarker);
  EXPECT_TRUE(b.Broken());
  EXPECT_EQ(b.checks_exit_code, 2);
  EXPECT_NE(b.checks_output.find("oops"), std::string::npos);  // Their stderr, for the model.
}

}  // namespace
}  // namespace coderunner::intent
