// Prestarted interpreters (languages.<name>.prestart and .preload): a
// pooled python container holds its interpreter already running, and the
// data stack already imported when the job's code names it. What a program
// prints, exits with and sees is what the same program gives with no
// prestart, program by program: "python" prestarts, "python-cold" (same
// image and command, prestart []) does not.
#include <string>
#include <vector>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

class PrestartedPythonTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "languages:\n"
           "  python: {image: coderunner/python:3.11, file: main.py, command: [python3, "
           "'{file}'],\n"
           "    default: true, prestart: [python3, -c, '{python_prestart}'],\n"
           "    preload: [numpy, pandas, matplotlib, matplotlib.pyplot]}\n"
           "  python-cold: {image: coderunner/python:3.11, file: main.py,\n"
           "    command: [python3, '{file}']}\n"
           "jobs: {cache_ttl_s: 0}\n";
  }
};

TEST_F(PrestartedPythonTest, WhatAProgramSeesAndPrintsIsWhatItWouldWithoutAPrestart) {
  struct Program {
    const char* name;
    std::string code;
    json extra;
  };
  const std::vector<Program> kPrograms = {
      {"main module",
       "import sys, os\nprint(sorted(globals()))\nprint(__name__, __file__, __spec__, "
       "__loader__.name)\nprint(sys.argv, sys.path[0], os.getcwd())\n",
       {{"args", {"a", "b c"}}}},
      {"stdin", "import sys\nprint(sys.stdin.read().upper())\n", {{"stdin", "one\ntwo\n"}}},
      {"a module of its own",
       "import helper\nprint(helper.VALUE)\n",
       {{"files", {{{"path", "helper.py"}, {"content", "VALUE = 42\n"}}}}}},
      {"traceback", "def f():\n    return 1/0\nprint('before')\nf()\n", {}},
      {"syntax error", "print(\n", {}},
      {"exit status", "import sys\nprint('x')\nsys.exit(3)\n", {}},
      {"atexit and a finalizer",
       "import atexit\nclass A:\n    def __del__(self):\n        print('del')\na = A()\n"
       "atexit.register(lambda: print('at exit'))\n",
       {}},
      {"a file left open",
       "f = open('/tmp/x', 'w')\nf.write('x' * 10)\nimport os\n"
       "print(os.path.getsize('/tmp/x'))\n",
       {}},
      {"processes and descriptors",
       "import os\nprint(len([p for p in os.listdir('/proc') if p.isdigit()]))\n"
       "print(sorted(os.listdir('/proc/self/fd')))\nprint(sorted(os.listdir('/tmp')))\n",
       {}},
  };
  for (const Program& p : kPrograms) {
    SCOPED_TRACE(p.name);
    json warm = RunUncached("python", p.code, p.extra);
    json cold = RunUncached("python-cold", p.code, p.extra);
    EXPECT_EQ(warm["status"], cold["status"]);
    EXPECT_EQ(warm["exit_code"], cold["exit_code"]);
    EXPECT_EQ(warm["stdout"], cold["stdout"]);
    EXPECT_EQ(warm["stderr"], cold["stderr"]);
  }
}

// A program that imports the data stack finds it already imported once
// the pool holds a preloading container of its shape, in the process that
// imported it; a program that does not name it gets a plain interpreter.
TEST_F(PrestartedPythonTest, TheDataStackIsImportedBeforeAJobThatNamesIt) {
  const std::string code =
      "import sys\nprint('pandas' in sys.modules)\nimport pandas, numpy, matplotlib\n"
      "print(pandas.DataFrame({'a': [1, 2]}).a.sum())\n";
  std::string seen;
  // The first such job teaches the pool the shape; later ones find it
  // filled (bounded: the bound only keeps a broken pool from hanging).
  for (int i = 0; i < 40 && seen != "True\n3\n"; ++i) {
    json r = RunUncached("python", code + "# " + std::to_string(i) + "\n");
    EXPECT_EQ(r["status"], "succeeded") << r.dump().substr(0, 1000);
    seen = r["stdout"];
    if (seen != "True\n3\n") std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  EXPECT_EQ(seen, "True\n3\n");
  json plain = RunUncached("python", "import sys\nprint('numpy' in sys.modules)\n");
  EXPECT_EQ(plain["stdout"], "False\n");
  json cold = RunUncached("python-cold", code);
  EXPECT_EQ(cold["stdout"], "False\n3\n");
}

}  // namespace
}  // namespace coderunner::testing
