// coderunner-init's prestart (-P, src/init/prestart.h) with the service's
// Python prestart (src/config/python_prestart.py): the real static init
// and the host's Debian python3 (the images' Python 3.11), as an
// unprivileged uid. A job runs in the process init started before its
// go, with the preload already imported; each case of a series gets its
// own; one that died before its go is replaced by a cold start; and what
// a program sees and prints is what `python3 main.py` gives it, program by
// program (the table below, run both ways). Likewise the Node.js prestart
// (src/config/node_prestart.js) with the host's node (the images' 20.20.2).
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "coderunner/config/language_spec.h"
#include "coderunner/isolation/init_trailer.h"
#include "isolation/init_message.h"

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kJobUid = 65534;
constexpr char kPython[] = "/usr/bin/python3";
constexpr char kNode[] = "/usr/bin/node";
// Above any descriptor the test process holds (ASan's included).
constexpr int kInheritedFdBound = 4096;

// What a process printed and how it ended.
struct Ran {
  int exit_code = -1;
  std::string out, err;
  bool operator==(const Ran&) const = default;
};

std::string ReadAll(int fd) {
  std::string s;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;) s.append(buf, static_cast<size_t>(n));
  return s;
}

// Forks `argv` as kJobUid in `dir` with the environment `env`; returns its
// pid and the read ends of its stdout and stderr.
pid_t Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& dir, int* out_fd, int* err_fd) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return -1;
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    if (dup2(in, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0 || chdir(dir.c_str()) != 0 ||
        setgroups(0, nullptr) != 0 || setgid(kJobUid) != 0 || setuid(kJobUid) != 0) {
      _exit(120);
    }
    // As in a container: nothing of the test process (a sanitizer's own
    // descriptors among them) is inherited, by init or by python3.
    for (int fd = 3; fd < kInheritedFdBound; ++fd) close(fd);
    execve(args[0], args.data(), envp.data());
    _exit(121);
  }
  close(out[1]);
  close(err[1]);
  *out_fd = out[0];
  *err_fd = err[0];
  return pid;
}

class PrestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-prestart-XXXXXX";
    root_ = mkdtemp(tmpl);
    ASSERT_EQ(chmod(root_.c_str(), 0755), 0);
    ws_ = root_ + "/ws";
    mods_ = root_ + "/mods";
    fs::create_directories(ws_);
    fs::create_directories(mods_);
    // A preload module that notes which process imported it, and when.
    std::ofstream(mods_ + "/marker_mod.py") << "import os\nPID = os.getpid()\nopen(" << '"' << root_
                                            << "/imported" << '"' << ", 'w').close()\n";
    fs::permissions(root_, fs::perms::all, fs::perm_options::add);
    fs::permissions(ws_, fs::perms::all, fs::perm_options::add);
    fifo_ = root_ + "/go";
    ASSERT_EQ(mkfifo(fifo_.c_str(), 0644), 0);
    go_fd_ = open(fifo_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(go_fd_, 0);
  }

  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    for (int fd : {go_fd_, out_fd_, err_fd_}) {
      if (fd >= 0) close(fd);
    }
    fs::remove_all(root_);
  }

  std::vector<std::string> Env() const {
    // late/ comes into being with the job (as a job's package layer does);
    // ws/layer is an earlier job's package layer, still in the working
    // directory while the next job's interpreter prestarts.
    return {"PATH=/usr/bin:/bin", "PYTHONPATH=" + ws_ + "/layer:" + root_ + "/late:" + mods_,
            "LANG=C.UTF-8"};
  }

  // Starts init with `prestart` as its -P words before `command`.
  void StartInit(const std::vector<std::string>& prestart,
                 const std::vector<std::string>& command) {
    std::vector<std::string> args = {CODERUNNER_INIT_BINARY, "-W", fifo_, "-P",
                                     std::to_string(prestart.size())};
    for (const auto& e : Env()) {
      args.push_back("-e");
      args.push_back(e);
    }
    args.push_back("--");
    args.insert(args.end(), prestart.begin(), prestart.end());
    args.insert(args.end(), command.begin(), command.end());
    pid_ = Spawn(args, {}, ws_, &out_fd_, &err_fd_);
    ASSERT_GT(pid_, 0);
  }

  std::vector<std::string> PythonPrestart(const std::vector<std::string>& preload) const {
    std::vector<std::string> words = {kPython, "-c", std::string(config::PythonPrestartScript())};
    words.insert(words.end(), preload.begin(), preload.end());
    return words;
  }

  // Sends a go and reads the job's output up to its trailer.
  Ran Go(GoMode mode, const std::vector<std::string>& args = {}) {
    const std::string nonce = "cd" + std::to_string(++jobs_);
    EXPECT_TRUE(WriteGoMessage(go_fd_, {false, nonce, args, mode}).ok());
    std::string err;
    std::optional<InitTrailer> trailer;
    char buf[4096];
    while (!trailer) {
      ssize_t n = read(err_fd_, buf, sizeof(buf));
      if (n <= 0) break;
      err.append(buf, static_cast<size_t>(n));
      trailer = ParseInitTrailer(err);
      if (trailer && trailer->eof != nonce) trailer.reset();
    }
    Ran r;
    EXPECT_TRUE(trailer) << err;
    if (!trailer) return r;
    r.exit_code = trailer->exit_code;
    r.err = err.substr(0, err.rfind("\x1e"));
    fcntl(out_fd_, F_SETFL, O_NONBLOCK);  // init wrote stdout's end before the trailer.
    r.out = ReadAll(out_fd_);
    const std::string marker = StdoutEndMarker(nonce);
    EXPECT_TRUE(r.out.ends_with(marker)) << r.out;
    if (r.out.ends_with(marker)) r.out.resize(r.out.size() - marker.size());
    return r;
  }

  // Reaps an init that ran its last job, and closes its streams.
  void ReapInit() {
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
    pid_ = -1;
    for (int* fd : {&out_fd_, &err_fd_}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
  }

  // `code` as `file` in the workspace, run by `interpreter` directly (no
  // init), as kJobUid.
  Ran Cold(const std::string& code, const std::vector<std::string>& args,
           const std::string& interpreter = kPython, const std::string& file = "main.py") {
    std::ofstream(ws_ + "/" + file) << code;
    std::vector<std::string> argv = {interpreter, ws_ + "/" + file};
    argv.insert(argv.end(), args.begin(), args.end());
    int out = -1, err = -1;
    pid_t pid = Spawn(argv, Env(), ws_, &out, &err);
    Ran r;
    r.out = ReadAll(out);
    r.err = ReadAll(err);
    close(out);
    close(err);
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
  }

  std::string root_, ws_, mods_, fifo_;
  int go_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  pid_t pid_ = -1;
  int jobs_ = 0;
};

TEST_F(PrestartTest, TheJobRunsInTheProcessStartedBeforeItsGoWithThePreloadImported) {
  if (access(kPython, X_OK) != 0) GTEST_SKIP() << "no " << kPython;
  std::ofstream(ws_ + "/main.py") << "import os, sys\n"
                                     "print('marker_mod' in sys.modules)\n"
                                     "import marker_mod\n"
                                     "print(marker_mod.PID == os.getpid(), sys.argv[1:])\n";
  // An earlier job's layer holds a module of the preload's name: the
  // preload must not load it (nothing under the working directory is on
  // its path), and it is gone before the job is released.
  fs::create_directories(ws_ + "/layer");
  std::ofstream(ws_ + "/layer/marker_mod.py") << "PID = -1\n";
  StartInit(PythonPrestart({"marker_mod"}), {kPython, ws_ + "/main.py"});
  // Once the preload ran (and found no late/ on its path), late/ appears,
  // with a module the job imports.
  for (int i = 0; i < 2000 && !fs::exists(root_ + "/imported"); ++i) usleep(5000);
  ASSERT_TRUE(fs::exists(root_ + "/imported")) << "the preload loaded the earlier job's module";
  fs::remove_all(ws_ + "/layer");
  fs::create_directories(root_ + "/late");
  std::ofstream(root_ + "/late/late_mod.py") << "VALUE = 'late'\n";
  std::ofstream(ws_ + "/main.py", std::ios::app) << "import late_mod\nprint(late_mod.VALUE)\n";
  // On the container's stdout, before the job's: the preload is loaded
  // (what the warm pool waits for; a pooled job's stdout drops it).
  const std::string ready(kPrestartReadyMarker);
  Ran first = Go(GoMode::kMore, {"a", "b c"});
  EXPECT_EQ(first.out, ready + "True\nTrue ['a', 'b c']\nlate\n");
  EXPECT_EQ(first.err, "");
  EXPECT_EQ(first.exit_code, 0);
  // The next case gets a process prestarted for it alone.
  std::ofstream(ws_ + "/main.py") << "import marker_mod, os\nprint(marker_mod.PID == os.getpid())\n"
                                     "raise SystemExit(3)\n";
  Ran second = Go(GoMode::kLast);
  EXPECT_EQ(second.out, ready + "True\n");
  EXPECT_EQ(second.exit_code, 3);
}

TEST_F(PrestartTest, APrestartThatDiedBeforeItsGoGivesWayToAColdStart) {
  StartInit({"/bin/sh", "-c", "exit 0"}, {"/bin/sh", "-c", "echo cold $0"});
  Ran r = Go(GoMode::kOnce, {"arg"});
  EXPECT_EQ(r.out, "cold arg\n");
  EXPECT_EQ(r.exit_code, 0);
}

// Each program, run prestarted (init, the prestart, a go) and by python3
// directly: stdout, stderr and exit status are the same. The recursion
// limit is the one difference README.md lists that a short program shows
// (two frames of the prestart lie below the program's).
TEST_F(PrestartTest, WhatAProgramPrintsIsWhatPython3MainPyPrints) {
  if (access(kPython, X_OK) != 0) GTEST_SKIP() << "no " << kPython;
  struct Program {
    const char* name;
    const char* code;
    std::vector<std::string> args;
  };
  const Program kPrograms[] = {
      {"hello", "print(1+1)\n", {}},
      {"globals",
       "import sys\nprint(sorted(globals()))\nprint(__name__, __file__, __doc__, __spec__, "
       "__package__, __cached__, __loader__.name, __loader__.path)\nprint(sys.argv, sys.path[0], "
       "repr(sys.modules['__main__']))\n",
       {"a", "b c"}},
      {"docstring", "\"\"\"Doc.\"\"\"\nprint(__doc__)\nx: int = 3\nprint(__annotations__)\n", {}},
      {"no stdin", "import sys\nprint(repr(sys.stdin.read()))\n", {}},
      {"exception", "def f():\n    return 1/0\nprint('before')\nf()\n", {}},
      {"syntax error", "print(\n", {}},
      {"exit status", "import sys\nsys.exit(3)\n", {}},
      {"exit message", "import sys\nsys.exit('bye')\n", {}},
      {"exit over 255", "import sys\nsys.exit(263)\n", {}},
      {"exit true", "import sys\nsys.exit(True)\n", {}},
      {"atexit after an exception",
       "import atexit\natexit.register(lambda: print('at exit'))\nraise ValueError('x')\n",
       {}},
      {"thread joined",
       "import threading, time\ndef w():\n    time.sleep(0.1); print('late')\n"
       "threading.Thread(target=w).start()\nprint('main')\n",
       {}},
      {"builtins shadowed", "type = 5\nopen = None\nraise KeyError('k')\n", {}},
      {"pickle of a __main__ class",
       "import pickle\nclass A: pass\nprint(type(pickle.loads(pickle.dumps(A()))).__name__)\n",
       {}},
      {"chained",
       "try:\n    1/0\nexcept Exception as e:\n    raise RuntimeError('w') from e\n",
       {}},
      {"coding cookie", "# -*- coding: latin-1 -*-\nprint('\xe9')\n", {}},
      {"finalizer", "class A:\n    def __del__(self):\n        print('del ran')\na = A()\n", {}},
      {"unclosed file", "f = open('/tmp/coderunner-prestart-unclosed', 'w')\nf.write('x')\n", {}},
      {"no newline", "import sys\nsys.stdout.write('partial')\n", {}},
      {"descriptors", "import os\nprint(sorted(os.listdir('/proc/self/fd')))\n", {}},
  };
  const std::string unclosed = "/tmp/coderunner-prestart-unclosed";
  for (const Program& p : kPrograms) {
    SCOPED_TRACE(p.name);
    (void)fs::remove(unclosed);
    Ran cold = Cold(p.code, p.args);
    std::ifstream cold_file(unclosed);
    const std::string cold_left(std::istreambuf_iterator<char>(cold_file), {});
    (void)fs::remove(unclosed);
    StartInit(PythonPrestart({}), {kPython, ws_ + "/main.py"});
    Ran warm = Go(GoMode::kOnce, p.args);
    ReapInit();
    EXPECT_EQ(warm.exit_code, cold.exit_code);
    EXPECT_EQ(warm.out, cold.out);
    EXPECT_EQ(warm.err, cold.err);
    // A file left open is flushed at the end, as by the interpreter's.
    std::ifstream warm_file(unclosed);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(warm_file), {}), cold_left);
  }
  (void)fs::remove(unclosed);
}

// An uncaught error's stack, but its last two frames: a prestarted
// script's main module is run from an immediate, a cold one's from Node's
// main (README.md lists it).
std::string WithoutEntryFrames(const std::string& err) {
  std::string out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.find("executeUserEntryPoint") != std::string::npos ||
        line.find("node:internal/main/run_main_module") != std::string::npos ||
        line.find("processImmediate") != std::string::npos) {
      continue;
    }
    out += line + "\n";
  }
  return out;
}

TEST_F(PrestartTest, WhatAScriptPrintsIsWhatNodeMainJsPrints) {
  if (access(kNode, X_OK) != 0) GTEST_SKIP() << "no " << kNode;
  struct Program {
    const char* name;
    const char* code;
    std::vector<std::string> args;
  };
  const Program kPrograms[] = {
      {"hello", "console.log(1 + 1)\n", {}},
      {"main module",
       "console.log(process.argv.slice(1), require.main === module, __filename, __dirname,\n"
       "  process.execArgv, module.paths[0])\n",
       {"a", "b c"}},
      {"no stdin", "console.log(JSON.stringify(require('fs').readFileSync(0, 'utf8')))\n", {}},
      {"exit code", "process.exitCode = 3\nconsole.log('x')\n", {}},
      {"exit", "console.log('a')\nprocess.exit(4)\n", {}},
      {"timers", "setTimeout(() => console.log('later'), 20)\nconsole.log('now')\n", {}},
      {"uncaught", "function f() { throw new Error('boom') }\nf()\n", {}},
      {"syntax error", "let x = ;\n", {}},
      {"rejection", "Promise.reject(new Error('no'))\n", {}},
      {"descriptors", "console.log(require('fs').readdirSync('/proc/self/fd').length)\n", {}},
  };
  for (const Program& p : kPrograms) {
    SCOPED_TRACE(p.name);
    Ran cold = Cold(p.code, p.args, kNode, "main.js");
    StartInit({kNode, "-e", std::string(config::NodePrestartScript())}, {kNode, ws_ + "/main.js"});
    Ran warm = Go(GoMode::kOnce, p.args);
    ReapInit();
    EXPECT_EQ(warm.exit_code, cold.exit_code);
    EXPECT_EQ(warm.out, cold.out);
    EXPECT_EQ(WithoutEntryFrames(warm.err), WithoutEntryFrames(cold.err));
  }
}

}  // namespace
}  // namespace coderunner::isolation
