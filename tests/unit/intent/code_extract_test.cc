#include "coderunner/intent/code_extract.h"

#include <gtest/gtest.h>

namespace coderunner::intent {
namespace {

TEST(CodeExtractTest, PrefersTheLanguagesBlockThenAnyBlockThenTheWholeReply) {
  const struct {
    const char* name;
    const char* language;
    const char* reply;
    const char* code;
  } cases[] = {
      {"prose and a block", "python", "Here you go:\n```python\nprint(1)\n```\nDone.",
       "print(1)\n"},
      {"language block second", "python", "```text\nnot it\n```\n```py\nprint(2)\n```",
       "print(2)\n"},
      {"any block", "bash", "```\necho hi\n```", "echo hi\n"},
      {"tilde fence", "javascript", "~~~js\nconsole.log(1)\n~~~", "console.log(1)\n"},
      {"no fence", "python", "\n\nprint(3)\n\n", "print(3)\n"},
      {"unterminated", "python", "```python\nx = 1\nprint(x)", "x = 1\nprint(x)\n"},
      {"empty", "python", "", ""},
      {"whitespace", "python", "  \n\t\n", ""},
      {"empty block", "python", "```python\n```", ""},
      {"crlf", "bash", "```bash\r\necho a\r\necho b\r\n```\r\n", "echo a\necho b\n"},
      {"longer outer fence keeps inner", "python", "````python\ns = '''\n```\n'''\nprint(s)\n````",
       "s = '''\n```\n'''\nprint(s)\n"},
      {"indentation kept", "python", "```python\n\ndef f():\n    return 1\n\nprint(f())\n```",
       "def f():\n    return 1\n\nprint(f())\n"},
      {"info with attributes", "python", "```python {linenos}\nprint(4)\n```", "print(4)\n"},
      {"upper-case tag", "javascript", "```JavaScript\nconsole.log(5)\n```", "console.log(5)\n"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ExtractCode(c.reply, c.language), c.code) << c.name;
  }
}

}  // namespace
}  // namespace coderunner::intent
