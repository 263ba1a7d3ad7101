// RunCommand: a shell command run to its end, as the tests run real clients
// (node scripts, the CLI, the service binary itself).
#ifndef CODERUNNER_TESTS_INTEGRATION_RUN_COMMAND_H_
#define CODERUNNER_TESTS_INTEGRATION_RUN_COMMAND_H_

#include <stdio.h>
#include <sys/wait.h>

#include <string>

namespace coderunner::testing {

// A command's exit status (-1 if it did not exit) and what it printed on
// stdout and stderr, together.
struct CommandResult {
  int exit_code = -1;
  std::string output;
};

inline CommandResult RunCommand(const std::string& cmd) {
  CommandResult r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, n);
  int status = pclose(p);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_RUN_COMMAND_H_
