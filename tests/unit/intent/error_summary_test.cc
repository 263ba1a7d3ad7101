#include "intent/error_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coderunner/common/utf8.h"

namespace coderunner::intent {
namespace {

// Samples are real stderr of python3 3.11, node 20 and bash 5.2 on this
// kind of program, with the path moved to /workspace.
struct SummaryCase {
  const char* name;
  std::string stderr_text;
  int preamble_lines;
  ErrorSummary want;
};

void ExpectSummaries(const char* language, const char* file,
                     const std::vector<SummaryCase>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ErrorSummary got = SummarizeError(language, c.stderr_text, file, c.preamble_lines);
    EXPECT_EQ(got.type, c.want.type);
    EXPECT_EQ(got.message, c.want.message);
    EXPECT_EQ(got.line, c.want.line);
  }
}

TEST(ErrorSummaryTest, PythonTracebacksGiveTheLastProgramFrameAndTheException) {
  ExpectSummaries(
      "python", "main.py",
      {
          {"nested frames",
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 7, in <module>\n"
           "    print(total({}))\n"
           "          ^^^^^^^^^\n"
           "  File \"/workspace/main.py\", line 5, in total\n"
           "    return d['missing'] + a\n"
           "           ~^^^^^^^^^^^\n"
           "KeyError: 'missing'\n",
           3,
           {"KeyError", "'missing'", 2}},
          {"frames in a library after the program's",
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 5, in <module>\n"
           "    json.loads(\"nope\")\n"
           "  File \"/usr/local/lib/python3.11/json/__init__.py\", line 346, in loads\n"
           "    return _default_decoder.decode(s)\n"
           "           ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
           "  File \"/usr/local/lib/python3.11/json/decoder.py\", line 355, in raw_decode\n"
           "    raise JSONDecodeError(\"Expecting value\", s, err.value) from None\n"
           "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n",
           3,
           {"json.decoder.JSONDecodeError", "Expecting value: line 1 column 1 (char 0)", 2}},
          {"relative path",
           "Traceback (most recent call last):\n"
           "  File \"main.py\", line 3, in <module>\n"
           "    x = [1][5]\n"
           "IndexError: list index out of range\n",
           0,
           {"IndexError", "list index out of range", 3}},
          {"chained exceptions: the last one",
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 2, in <module>\n"
           "    1/0\n"
           "    ~^~\n"
           "ZeroDivisionError: division by zero\n"
           "\n"
           "During handling of the above exception, another exception occurred:\n"
           "\n"
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 4, in <module>\n"
           "    raise ValueError(\"bad\\nsecond: line\")\n"
           "ValueError: bad\n"
           "second: line\n",
           0,
           {"ValueError", "bad", 4}},
          {"program's own stderr before the traceback",
           "Warning: hi\n"
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 3, in <module>\n"
           "    x = [1][5]\n"
           "        ~~~^^^\n"
           "IndexError: list index out of range\n",
           0,
           {"IndexError", "list index out of range", 3}},
          {"bare exception",
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 1, in <module>\n"
           "    assert 1 == 2\n"
           "           ^^^^^^\n"
           "AssertionError\n",
           0,
           {"AssertionError", "", 1}},
          {"bare custom exception",
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 2, in <module>\n"
           "    raise E\n"
           "E\n",
           0,
           {"E", "", 2}},
          {"keyboard interrupt",
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 9, in <module>\n"
           "KeyboardInterrupt\n",
           4,
           {"KeyboardInterrupt", "", 5}},
          {"recursion folded",
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 3, in <module>\n"
           "    f()\n"
           "  File \"/workspace/main.py\", line 2, in f\n"
           "    def f(): f()\n"
           "             ^^^\n"
           "  [Previous line repeated 996 more times]\n"
           "RecursionError: maximum recursion depth exceeded\n",
           0,
           {"RecursionError", "maximum recursion depth exceeded", 2}},
          {"error raised in the preamble",
           "Traceback (most recent call last):\n"
           "  File \"/workspace/main.py\", line 3, in <module>\n"
           "    with open('/workspace/params.json', encoding='utf-8') as _cr_f:\n"
           "FileNotFoundError: [Errno 2] No such file or directory: "
           "'/workspace/params.json'\n",
           6,
           {"FileNotFoundError", "[Errno 2] No such file or directory: '/workspace/params.json'",
            0}},
          {"another file of the same name does not count",
           "Traceback (most recent call last):\n"
           "  File \"/workspace/lib/notmain.py\", line 8, in <module>\n"
           "OSError: x\n",
           0,
           {"OSError", "x", 0}},
          {"CRLF",
           "Traceback (most recent call last):\r\n"
           "  File \"/workspace/main.py\", line 4, in <module>\r\n"
           "NameError: name 'y' is not defined\r\n",
           1,
           {"NameError", "name 'y' is not defined", 3}},
      });
}

TEST(ErrorSummaryTest, PythonSyntaxErrorsGiveTheirLine) {
  ExpectSummaries("python", "main.py",
                  {
                      {"never closed",
                       "  File \"/workspace/main.py\", line 4\n"
                       "    print(x\n"
                       "         ^\n"
                       "SyntaxError: '(' was never closed\n",
                       2,
                       {"SyntaxError", "'(' was never closed", 2}},
                      {"indentation",
                       "  File \"/workspace/main.py\", line 5\n"
                       "    y = 2\n"
                       "IndentationError: unexpected indent\n",
                       3,
                       {"IndentationError", "unexpected indent", 2}},
                  });
}

TEST(ErrorSummaryTest, PythonWithoutATracebackFallsBackToTheLastLine) {
  ExpectSummaries(
      "python", "main.py",
      {
          {"cannot open",
           "python3: can't open file '/workspace/main.py': [Errno 2] No such file or "
           "directory\n",
           0,
           {"",
            "python3: can't open file '/workspace/main.py': [Errno 2] No such file or "
            "directory",
            0}},
          {"sys.exit with a message", "fatal: bad config\n\n", 3, {"", "fatal: bad config", 0}},
          {"a program line that merely looks like a label",
           "Warning: disk nearly full\n",
           0,
           {"", "Warning: disk nearly full", 0}},
          {"an exception line without a traceback",
           "noise\nMemoryError\n",
           0,
           {"MemoryError", "", 0}},
          {"empty", "", 0, {"", "", 0}},
      });
}

TEST(ErrorSummaryTest, TsxErrorsGiveEsbuildsSyntaxErrorOrNodesReport) {
  ExpectSummaries("typescript", "main.ts",
                  {
                      {"syntax error, reported by esbuild from Node's own code",
                       "node:internal/modules/run_main:123\n"
                       "    triggerUncaughtException(\n"
                       "    ^\n"
                       "Error [TransformError]: Transform failed with 1 error:\n"
                       "/workspace/main.ts:5:10: ERROR: Unexpected \";\"\n"
                       "    at failureErrorWithLog "
                       "(/usr/local/lib/coderunner-npm/node_modules/esbuild/lib/main.js:1752:15)\n"
                       "    at Socket.emit (node:events:524:28)\n"
                       "\n"
                       "Node.js v20.20.2\n",
                       3,
                       {"TransformError", "Unexpected \";\"", 2}},
                      {"an esbuild error in another file is not the program's line",
                       "Error [TransformError]: Transform failed with 1 error:\n"
                       "/workspace/lib.ts:5:10: ERROR: Unexpected \";\"\n",
                       0,
                       {"", "/workspace/lib.ts:5:10: ERROR: Unexpected \";\"", 0}},
                      {"runtime error, lines from tsx's source map",
                       "/workspace/main.ts:6\n"
                       "function f(){ throw new Error(\"boom\"); }\n"
                       "                    ^\n"
                       "\n"
                       "\n"
                       "Error: boom\n"
                       "    at f (/workspace/main.ts:6:21)\n"
                       "    at <anonymous> (/workspace/main.ts:7:1)\n"
                       "    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)\n"
                       "\n"
                       "Node.js v20.20.2\n",
                       4,
                       {"Error", "boom", 2}},
                  });
}

TEST(ErrorSummaryTest, NodeErrorsGiveTheHeaderLineAndTheThrownError) {
  ExpectSummaries("javascript", "main.js",
                  {
                      {"reference error",
                       "/workspace/main.js:4\n"
                       "console.log(x.y.z);\n"
                       "            ^\n"
                       "\n"
                       "ReferenceError: x is not defined\n"
                       "    at Object.<anonymous> (/workspace/main.js:4:13)\n"
                       "    at Module._compile (node:internal/modules/cjs/loader:1521:14)\n"
                       "    at node:internal/main/run_main_module:28:49\n"
                       "\n"
                       "Node.js v20.20.2\n",
                       2,
                       {"ReferenceError", "x is not defined", 2}},
                      {"throw new Error in a function",
                       "/workspace/main.js:2\n"
                       "  throw new Error(\"boom\");\n"
                       "  ^\n"
                       "\n"
                       "Error: boom\n"
                       "    at f (/workspace/main.js:2:9)\n"
                       "    at Object.<anonymous> (/workspace/main.js:4:1)\n"
                       "\n"
                       "Node.js v20.20.2\n",
                       0,
                       {"Error", "boom", 2}},
                      {"syntax error",
                       "/workspace/main.js:6\n"
                       "let x = ;\n"
                       "        ^\n"
                       "\n"
                       "SyntaxError: Unexpected token ';'\n"
                       "    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n"
                       "\n"
                       "Node.js v20.20.2\n",
                       5,
                       {"SyntaxError", "Unexpected token ';'", 1}},
                      {"custom error class",
                       "/workspace/main.js:2\n"
                       "throw new MyErr(\"custom\");\n"
                       "^\n"
                       "\n"
                       "MyErr: custom\n"
                       "    at Object.<anonymous> (/workspace/main.js:2:7)\n",
                       0,
                       {"MyErr", "custom", 2}},
                      {"async function",
                       "/workspace/main.js:1\n"
                       "async function m() { await null; undefinedFn(); }\n"
                       "                                 ^\n"
                       "\n"
                       "ReferenceError: undefinedFn is not defined\n"
                       "    at m (/workspace/main.js:1:34)\n"
                       "\n"
                       "Node.js v20.20.2\n",
                       0,
                       {"ReferenceError", "undefinedFn is not defined", 1}},
                      {"thrown string",
                       "/workspace/main.js:3\n"
                       "throw \"boom\";\n"
                       "^\n"
                       "boom\n"
                       "(Use `node --trace-uncaught ...` to show where the exception was thrown)\n"
                       "\n"
                       "Node.js v20.20.2\n",
                       0,
                       {"", "boom", 3}},
                      {"program's own stderr before the report",
                       "starting: 3 items\n"
                       "/workspace/main.js:9\n"
                       "  items.forEach(i => i.go());\n"
                       "                       ^\n"
                       "\n"
                       "TypeError: i.go is not a function\n"
                       "    at /workspace/main.js:9:24\n",
                       3,
                       {"TypeError", "i.go is not a function", 6}},
                  });
}

TEST(ErrorSummaryTest, NodeErrorsThrownOutsideTheProgramTakeTheLineFromTheStack) {
  ExpectSummaries(
      "javascript", "main.js",
      {
          {"fs error with properties",
           "node:fs:573\n"
           "  return binding.open(\n"
           "                 ^\n"
           "\n"
           "Error: ENOENT: no such file or directory, open 'nope.txt'\n"
           "    at Object.openSync (node:fs:573:18)\n"
           "    at Object.readFileSync (node:fs:452:35)\n"
           "    at Object.<anonymous> (/workspace/main.js:5:4)\n"
           "    at node:internal/main/run_main_module:28:49 {\n"
           "  errno: -2,\n"
           "  code: 'ENOENT',\n"
           "  syscall: 'open',\n"
           "  path: 'nope.txt'\n"
           "}\n"
           "\n"
           "Node.js v20.20.2\n",
           3,
           {"Error", "ENOENT: no such file or directory, open 'nope.txt'", 2}},
          {"JSON.parse",
           "<anonymous_script>:1\n"
           "{bad\n"
           " ^\n"
           "\n"
           "SyntaxError: Expected property name or '}' in JSON at position 1\n"
           "    at JSON.parse (<anonymous>)\n"
           "    at Object.<anonymous> (/workspace/main.js:3:6)\n"
           "\n"
           "Node.js v20.20.2\n",
           0,
           {"SyntaxError", "Expected property name or '}' in JSON at position 1", 3}},
          {"unhandled rejection of a non-error",
           "node:internal/process/promises:389\n"
           "      new UnhandledPromiseRejection(reason);\n"
           "      ^\n"
           "\n"
           "UnhandledPromiseRejection: This error originated either by throwing inside of an "
           "async function without a catch block. The promise rejected with the reason "
           "\"why\".\n"
           "    at throwUnhandledRejectionsMode (node:internal/process/promises:389:7) {\n"
           "  code: 'ERR_UNHANDLED_REJECTION'\n"
           "}\n"
           "\n"
           "Node.js v20.20.2\n",
           0,
           {"UnhandledPromiseRejection",
            "This error originated either by throwing inside of an async function without a "
            "catch block. The promise rejected with the reason \"why\".",
            0}},
          {"ES module URL",
           "file:///workspace/main.js:2\n"
           "x();\n"
           "^\n"
           "\n"
           "ReferenceError: x is not defined\n"
           "    at file:///workspace/main.js:2:1\n",
           0,
           {"ReferenceError", "x is not defined", 2}},
      });
}

TEST(ErrorSummaryTest, NodeStacksPrintedByTheProgramAndOtherOutput) {
  ExpectSummaries("javascript", "main.js",
                  {
                      {"err.stack printed by the program",
                       "ReferenceError: foo is not defined\n"
                       "    at f (/workspace/main.js:8:3)\n"
                       "    at Object.<anonymous> (/workspace/main.js:10:1)\n",
                       3,
                       {"ReferenceError", "foo is not defined", 5}},
                      {"plain Error with a stack",
                       "Error: boom\n    at Object.<anonymous> (/workspace/main.js:3:7)\n",
                       0,
                       {"Error", "boom", 3}},
                      {"a label without a stack is not an error",
                       "note: 3 items\nfailed\n",
                       0,
                       {"", "failed", 0}},
                      {"fallback skips the Node trailer",
                       "something odd\n\nNode.js v20.20.2\n",
                       0,
                       {"", "something odd", 0}},
                      {"error in the preamble",
                       "/workspace/main.js:2\n"
                       "const _cr_params = JSON.parse(require(\"fs\").readFileSync(\"x\"));\n"
                       "                                              ^\n"
                       "\n"
                       "Error: ENOENT\n",
                       3,
                       {"Error", "ENOENT", 0}},
                  });
}

TEST(ErrorSummaryTest, BashErrorsGiveTheFirstProgramLine) {
  ExpectSummaries("bash", "main.sh",
                  {
                      {"command not found",
                       "/workspace/main.sh: line 5: frobnicate: command not found\n",
                       2,
                       {"BashError", "frobnicate: command not found", 3}},
                      {"relative path",
                       "main.sh: line 2: foo: command not found\n",
                       0,
                       {"BashError", "foo: command not found", 2}},
                      {"syntax error: the first of its two lines",
                       "/workspace/main.sh: line 3: syntax error near unexpected token `fi'\n"
                       "/workspace/main.sh: line 3: `fi fi'\n",
                       0,
                       {"BashError", "syntax error near unexpected token `fi'", 3}},
                      {"unexpected end of file",
                       "/workspace/main.sh: line 7: syntax error: unexpected end of file\n",
                       4,
                       {"BashError", "syntax error: unexpected end of file", 3}},
                      {"builtin error under set -e",
                       "/workspace/main.sh: line 6: cd: /nonexistent: No such file or directory\n",
                       4,
                       {"BashError", "cd: /nonexistent: No such file or directory", 2}},
                      {"unbound variable",
                       "/workspace/main.sh: line 4: nope: unbound variable\n",
                       2,
                       {"BashError", "nope: unbound variable", 2}},
                      {"arithmetic",
                       "/workspace/main.sh: line 3: 1/0: division by 0 (error token is \"0\")\n",
                       2,
                       {"BashError", "1/0: division by 0 (error token is \"0\")", 1}},
                      {"a command's own message before it",
                       "cat: /nonexistent: No such file or directory\n"
                       "/workspace/main.sh: line 9: jq: command not found\n",
                       3,
                       {"BashError", "jq: command not found", 6}},
                      {"in the preamble",
                       "/workspace/main.sh: line 2: x: readonly variable\n",
                       4,
                       {"BashError", "x: readonly variable", 0}},
                      {"a command's message only",
                       "cat: /nonexistent: No such file or directory\n",
                       0,
                       {"", "cat: /nonexistent: No such file or directory", 0}},
                      {"another script",
                       "/workspace/lib.sh: line 3: x: command not found\n",
                       0,
                       {"", "/workspace/lib.sh: line 3: x: command not found", 0}},
                  });
}

TEST(ErrorSummaryTest, UnknownLanguageGivesTheLastLine) {
  ErrorSummary e = SummarizeError("ruby", "a\nboom (RuntimeError)\n\n", "main.rb", 0);
  EXPECT_EQ(e.type, "");
  EXPECT_EQ(e.message, "boom (RuntimeError)");
  EXPECT_EQ(e.line, 0);
}

TEST(ErrorSummaryTest, HugeLineNumbersAreUnknownRatherThanFatal) {
  EXPECT_EQ(
      SummarizeError("python", "  File \"/workspace/main.py\", line 99999999999999999999\nE: x\n",
                     "main.py", 0)
          .line,
      0);
  EXPECT_EQ(SummarizeError("bash", "/workspace/main.sh: line 4294967297: x\n", "main.sh", 0).line,
            0);
  EXPECT_EQ(SummarizeError("javascript", "/workspace/main.js:99999999999\nx\n^\n\nError: e\n",
                           "main.js", 0)
                .line,
            0);
}

TEST(ErrorSummaryTest, LongStderrIsReadFromItsTail) {
  std::string big(5 << 20, 'x');
  big +=
      "\nTraceback (most recent call last):\n  File \"/workspace/main.py\", line 3\n"
      "ZeroDivisionError: division by zero\n";
  ErrorSummary e = SummarizeError("python", big, "main.py", 0);
  EXPECT_EQ(e.type, "ZeroDivisionError");
  EXPECT_EQ(e.line, 3);
  // One endless line: bounded, and quick (no backtracking regex).
  for (const char* language : {"python", "javascript", "bash", "other"}) {
    ErrorSummary flood = SummarizeError(language, std::string(10 << 20, 'y'), "main.py", 0);
    EXPECT_LE(flood.message.size(), 500u) << language;
  }
}

TEST(ErrorSummaryTest, TypeAndMessageAreBoundedValidUtf8) {
  // 499 ASCII bytes then a 2-byte character: the cut keeps whole characters.
  std::string long_message = std::string(499, 'm') + "\xc3\xa9" + std::string(100, 'n');
  ErrorSummary e = SummarizeError(
      "python",
      "Traceback (most recent call last):\n  File \"/workspace/main.py\", line 1\nValueError: " +
          long_message + "\n",
      "main.py", 0);
  EXPECT_EQ(e.type, "ValueError");
  EXPECT_EQ(e.message, std::string(499, 'm'));
  ErrorSummary bad =
      SummarizeError("bash", "/workspace/main.sh: line 1: \xff\xfe bad\n", "main.sh", 0);
  EXPECT_TRUE(IsValidUtf8(bad.message));
  EXPECT_EQ(bad.message, "\xef\xbf\xbd\xef\xbf\xbd bad");
  ErrorSummary long_type = SummarizeError(
      "javascript", std::string(300, 'A') + "Error: x\n    at f (/workspace/main.js:1:1)\n",
      "main.js", 0);
  EXPECT_LE(long_type.type.size(), 100u);
  EXPECT_EQ(long_type.message, "x");
}

}  // namespace
}  // namespace coderunner::intent
