// Prestarted interpreters (languages.<name>.prestart and .preload): a
// pooled python or node container holds its interpreter already running,
// and python's data stack already imported when the job's code names it.
// What a program prints, exits with and sees is what the same program
// gives with no prestart, program by program: "python" and "javascript"
// prestart, "python-cold" and "javascript-cold" (same image and command,
// prestart []) do not.
#include <chrono>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

class PrestartedInterpretersTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "languages:\n"
           "  python: {image: coderunner/python:3.11, file: main.py, command: [python3, "
           "'{file}'],\n"
           "    default: true, prestart: [python3, -c, '{python_prestart}'],\n"
           "    preload: [numpy, pandas, matplotlib, matplotlib.pyplot]}\n"
           "  python-cold: {image: coderunner/python:3.11, file: main.py,\n"
           "    command: [python3, '{file}']}\n"
           "  javascript: {image: coderunner/node:20, file: main.js, command: [node, '{file}'],\n"
           "    prestart: [node, -e, '{node_prestart}']}\n"
           "  javascript-cold: {image: coderunner/node:20, file: main.js, command: [node, "
           "'{file}']}\n"
           "jobs: {cache_ttl_s: 0}\n";
  }

  // A program and the request fields it runs with.
  struct Program {
    const char* name;
    std::string code;
    json extra;
  };

  // Each of `programs` through `language` (prestarted) and `language`-cold:
  // the same status, exit code and stdout, and the same stderr once
  // `normalize` is applied to both.
  void ExpectSameAsCold(const std::string& language, const std::vector<Program>& programs,
                        const std::function<std::string(const std::string&)>& normalize) {
    for (const Program& p : programs) {
      SCOPED_TRACE(p.name);
      json warm = RunUncached(language, p.code, p.extra);
      json cold = RunUncached(language + "-cold", p.code, p.extra);
      EXPECT_EQ(warm["status"], cold["status"]);
      EXPECT_EQ(warm["exit_code"], cold["exit_code"]);
      EXPECT_EQ(warm["stdout"], cold["stdout"]);
      EXPECT_EQ(normalize(warm.value("stderr", "")), normalize(cold.value("stderr", "")));
    }
  }
};

TEST_F(PrestartedInterpretersTest, WhatAProgramSeesAndPrintsIsWhatItWouldWithoutAPrestart) {
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
  ExpectSameAsCold("python", kPrograms, [](const std::string& err) { return err; });
}

// An uncaught error's stack, but the frames of the main module's entry,
// which differ (README.md lists it).
std::string WithoutEntryFrames(const std::string& err) {
  std::string out;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.find("executeUserEntryPoint") != std::string::npos ||
        line.find("run_main_module") != std::string::npos ||
        line.find("processImmediate") != std::string::npos) {
      continue;
    }
    out += line + "\n";
  }
  return out;
}

TEST_F(PrestartedInterpretersTest, WhatAScriptSeesAndPrintsIsWhatItWouldWithoutAPrestart) {
  const std::vector<Program> kPrograms = {
      {"main module",
       "console.log(process.argv.slice(1), require.main === module, __filename, process.cwd(),\n"
       "  process.execArgv, process.pid > 1)\n",
       {{"args", {"a", "b c"}}}},
      {"stdin",
       "console.log(require('fs').readFileSync(0, 'utf8').toUpperCase())\n",
       {{"stdin", "one\ntwo\n"}}},
      {"stdin as a stream",
       "let d = ''\nprocess.stdin.on('data', (c) => (d += c)).on('end', () => console.log(d))\n",
       {{"stdin", "streamed\n"}}},
      {"a module of its own",
       "console.log(require('./helper').value)\n",
       {{"files", {{{"path", "helper.js"}, {"content", "module.exports = {value: 42}\n"}}}}}},
      {"uncaught", "function f() { throw new Error('boom') }\nconsole.log('before')\nf()\n", {}},
      {"exit code", "process.exitCode = 3\nsetTimeout(() => console.log('later'), 10)\n", {}},
      {"descriptors and processes",
       "const fs = require('fs')\nconsole.log(fs.readdirSync('/proc/self/fd').length,\n"
       "  fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).length)\n",
       {}},
  };
  ExpectSameAsCold("javascript", kPrograms, WithoutEntryFrames);
}

// A program that imports the data stack finds it already imported once
// the pool holds a preloading container of its shape, in the process that
// imported it; a program that does not name it gets a plain interpreter.
TEST_F(PrestartedInterpretersTest, TheDataStackIsImportedBeforeAJobThatNamesIt) {
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
  // A program that names no preloaded module (written so that it does
  // not: a mention is enough to be preloaded).
  json plain = RunUncached("python", "import sys\nprint(('num' + 'py') in sys.modules)\n");
  EXPECT_EQ(plain["stdout"], "False\n");
  json cold = RunUncached("python-cold", code);
  EXPECT_EQ(cold["stdout"], "False\n3\n");
}

}  // namespace
}  // namespace coderunner::testing
