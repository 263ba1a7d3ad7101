#include "coderunner/intent/error_summary.h"

#include <gtest/gtest.h>

namespace coderunner::intent {
namespace {

TEST(ErrorSummaryTest, ReadsTypeMessageAndLineOfEachLanguage) {
  const struct {
    const char* name;
    const char* language;
    const char* stderr_text;
    int preamble_lines;
    ErrorSummary want;
  } cases[] = {
      {"python traceback",
       "python",
       "Traceback (most recent call last):\n"
       "  File \"/workspace/main.py\", line 7, in <module>\n"
       "    print(total({}))\n"
       "  File \"/workspace/main.py\", line 5, in total\n"
       "    return d['missing'] + a\n"
       "           ~^^^^^^^^^^^\n"
       "KeyError: 'missing'\n",
       3,
       {"KeyError", "'missing'", 2}},
      {"python syntax error",
       "python",
       "  File \"/workspace/main.py\", line 4\n    print(1\n         ^\n"
       "SyntaxError: '(' was never closed\n",
       2,
       {"SyntaxError", "'(' was never closed", 2}},
      {"python frame in a library only",
       "python",
       "Traceback (most recent call last):\n"
       "  File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\n"
       "ValueError: bad\n",
       0,
       {"ValueError", "bad", 0}},
      {"python error in the preamble",
       "python",
       "  File \"/workspace/main.py\", line 2, in <module>\nNameError: name 'x' is not defined\n",
       3,
       {"NameError", "name 'x' is not defined", 0}},
      {"python bare exception",
       "python",
       "Traceback (most recent call last):\n  File \"/workspace/main.py\", line 9, in <module>\n"
       "KeyboardInterrupt\n",
       4,
       {"KeyboardInterrupt", "", 5}},
      {"node throw",
       "javascript",
       "/workspace/main.js:6\nconsole.log(x.y.z);\n              ^\n\n"
       "TypeError: Cannot read properties of undefined (reading 'z')\n"
       "    at Object.<anonymous> (/workspace/main.js:6:15)\n    at Module._compile "
       "(node:internal/modules/cjs/loader:1256:14)\n\nNode.js v20.11.0\n",
       2,
       {"TypeError", "Cannot read properties of undefined (reading 'z')", 4}},
      {"node plain Error",
       "javascript",
       "/workspace/main.js:3\nthrow new Error('boom');\n^\n\nError: boom\n    at "
       "Object.<anonymous> "
       "(/workspace/main.js:3:7)\n",
       0,
       {"Error", "boom", 3}},
      {"node frame only",
       "javascript",
       "ReferenceError: foo is not defined\n    at f (/workspace/main.js:8:3)\n",
       3,
       {"ReferenceError", "foo is not defined", 5}},
      {"bash",
       "bash",
       "/workspace/main.sh: line 5: frobnicate: command not found\n",
       2,
       {"BashError", "frobnicate: command not found", 3}},
      {"unknown shape",
       "python",
       "something odd happened\n\n",
       0,
       {"", "something odd happened", 0}},
      {"empty", "bash", "", 0, {"", "", 0}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string file = std::string("main.") + (std::string(c.language) == "python"       ? "py"
                                               : std::string(c.language) == "javascript" ? "js"
                                                                                         : "sh");
    ErrorSummary got = SummarizeError(c.language, c.stderr_text, file, c.preamble_lines);
    EXPECT_EQ(got.type, c.want.type);
    EXPECT_EQ(got.message, c.want.message);
    EXPECT_EQ(got.line, c.want.line);
  }
}

TEST(ErrorSummaryTest, LongStderrIsBoundedAndReadFromItsTail) {
  std::string big(5 << 20, 'x');
  big +=
      "\nTraceback (most recent call last):\n  File \"/workspace/main.py\", line 3\n"
      "ZeroDivisionError: division by zero\n";
  ErrorSummary e = SummarizeError("python", big, "main.py", 0);
  EXPECT_EQ(e.type, "ZeroDivisionError");
  EXPECT_EQ(e.line, 3);
  ErrorSummary flood = SummarizeError("python", std::string(100000, 'y'), "main.py", 0);
  EXPECT_LE(flood.message.size(), 500u);
}

}  // namespace
}  // namespace coderunner::intent
