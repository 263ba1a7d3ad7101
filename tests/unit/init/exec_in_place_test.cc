// coderunner-init -x (src/init/coderunner_init.c): what a process the
// service starts in a running sandbox goes through. The real static binary
// runs on the host: it must become the command in its own process (same
// pid), under its filter with no_new_privs, and refuse any other option.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

extern char** environ;

namespace {

struct Ran {
  pid_t pid = -1;
  int exit_code = -1;
  std::string stdout_text;
};

// Runs coderunner-init with `args`, its stdout collected.
Ran RunInit(std::vector<std::string> args) {
  args.insert(args.begin(), CODERUNNER_INIT_BINARY);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  EXPECT_EQ(pipe(out), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  Ran r;
  EXPECT_EQ(posix_spawn(&r.pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof(buf))) > 0;) r.stdout_text.append(buf, n);
  close(out[0]);
  int status = 0;
  EXPECT_EQ(waitpid(r.pid, &status, 0), r.pid);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

TEST(ExecInPlaceTest, BecomesTheCommandUnderTheFilter) {
  Ran r = RunInit({"-x", "--", "/bin/sh", "-c",
                   "echo pid $$; grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status"});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text;
  EXPECT_EQ(r.stdout_text, "pid " + std::to_string(r.pid) +
                               "\n"
                               "NoNewPrivs:\t1\n"
                               "Seccomp:\t2\n");
}

TEST(ExecInPlaceTest, TakesNoOtherOptionAndSaysWhatItCouldNotRun) {
  struct Case {
    std::vector<std::string> args;
    int exit_code;
  };
  const Case cases[] = {
      {{"-x", "--", "/bin/sh", "-c", "exit 3"}, 3},
      {{"-x", "--", "/nonexistent/command"}, 127},
      {{"-x", "--"}, 126},
      {{"-x", "-e", "A=B", "--", "/bin/true"}, 126},
      {{"-x", "-W", "/tmp/fifo", "--", "/bin/true"}, 126},
      {{"-x", "-o", "/tmp", "--", "/bin/true"}, 126},
      {{"-x", "-c", "100", "--", "/bin/true"}, 126},
      {{"-x", "-i", "/dev/null", "--", "/bin/true"}, 126},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_EQ(RunInit(c.args).exit_code, c.exit_code) << joined;
  }
}

}  // namespace
