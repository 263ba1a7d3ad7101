#include "intent/code_extract.h"

#include <gtest/gtest.h>

#include <vector>

namespace coderunner::intent {
namespace {

struct ExtractCase {
  const char* name;
  const char* language;
  const char* reply;
  const char* code;
};

void ExpectExtracted(const std::vector<ExtractCase>& cases) {
  for (const auto& c : cases) EXPECT_EQ(ExtractCode(c.reply, c.language), c.code) << c.name;
}

TEST(CodeExtractTest, PrefersTheLanguagesBlockThenAnyBlockThenTheWholeReply) {
  ExpectExtracted({
      {"prose and a block", "python", "Here you go:\n```python\nprint(1)\n```\nDone.",
       "print(1)\n"},
      {"language block second", "python", "```text\nnot it\n```\n```py\nprint(2)\n```",
       "print(2)\n"},
      {"first of two language blocks", "bash", "```sh\necho 1\n```\n```bash\necho 2\n```",
       "echo 1\n"},
      {"untagged block", "bash", "```\necho hi\n```", "echo hi\n"},
      {"other language's block when none is ours", "javascript",
       "```python\nprint(1)\n```\n```text\nx\n```", "print(1)\n"},
      {"no fence: whole reply", "python", "\n\nprint(3)\n\n", "print(3)\n"},
      {"no fence, prose", "python", "I cannot do that.", "I cannot do that.\n"},
  });
}

TEST(CodeExtractTest, InfoStringAliasesNameTheLanguage) {
  ExpectExtracted({
      {"python3", "python", "```text\nx\n```\n```python3\nprint(1)\n```", "print(1)\n"},
      {"js", "javascript", "```text\nx\n```\n```js\nf()\n```", "f()\n"},
      {"node", "javascript", "```text\nx\n```\n```node\nf()\n```", "f()\n"},
      {"nodejs", "javascript", "```text\nx\n```\n```nodejs\nf()\n```", "f()\n"},
      {"ts", "typescript", "```text\nx\n```\n```ts\nlet a: number = 1;\n```",
       "let a: number = 1;\n"},
      {"typescript", "typescript", "```js\nx\n```\n```TypeScript\nf()\n```", "f()\n"},
      {"tsx", "typescript", "```text\nx\n```\n```tsx\nf()\n```", "f()\n"},
      {"shell", "bash", "```text\nx\n```\n```shell\nls\n```", "ls\n"},
      {"upper case", "javascript", "```text\nx\n```\n```JavaScript\nf()\n```", "f()\n"},
      {"attributes after the word", "python", "```text\nx\n```\n```python {linenos}\np()\n```",
       "p()\n"},
      {"file name after a colon", "python", "```text\nx\n```\n```python:main.py\np()\n```",
       "p()\n"},
      {"space before the word", "bash", "```text\nx\n```\n``` bash\nls\n```", "ls\n"},
      {"zsh is not bash", "bash", "```zsh\nprint -l a\n```\n```text\nx\n```", "print -l a\n"},
  });
}

TEST(CodeExtractTest, FencesFollowCommonMark) {
  ExpectExtracted({
      {"tilde fence", "javascript", "~~~js\nconsole.log(1)\n~~~", "console.log(1)\n"},
      {"long fence", "python", "`````python\nprint(1)\n`````", "print(1)\n"},
      {"nested ``` inside ````", "python", "````python\ns = '''\n```\n'''\nprint(s)\n````",
       "s = '''\n```\n'''\nprint(s)\n"},
      {"~~~ does not close ```", "bash", "```bash\necho a\n~~~\necho b\n```",
       "echo a\n~~~\necho b\n"},
      {"shorter fence does not close", "bash", "````bash\necho a\n```\necho b\n````",
       "echo a\n```\necho b\n"},
      {"closing fence with text after it does not close", "bash",
       "```bash\necho a\n``` x\necho b\n```", "echo a\n``` x\necho b\n"},
      {"closing fence with trailing spaces closes", "bash", "```bash\necho a\n```  \nprose",
       "echo a\n"},
      {"indented fence strips its indent", "python",
       "1. Run this:\n   ```python\n   def f():\n       return 1\n   print(f())\n   ```",
       "def f():\n    return 1\nprint(f())\n"},
      {"four spaces is no fence", "python", "    ```python\n    print(1)\n    ```",
       "    ```python\n    print(1)\n    ```\n"},
      {"inline triple backticks are no fence", "python",
       "Call ```print(1)``` like this:\n```python\nprint(2)\n```", "print(2)\n"},
      {"unterminated fence runs to the end", "python", "```python\nx = 1\nprint(x)",
       "x = 1\nprint(x)\n"},
      {"unterminated after prose", "bash", "Sure!\n```bash\necho a\n\n", "echo a\n"},
      {"crlf", "bash", "```bash\r\necho a\r\necho b\r\n```\r\n", "echo a\necho b\n"},
  });
}

TEST(CodeExtractTest, ResultIsTrimmedToWholeLines) {
  ExpectExtracted({
      {"empty reply", "python", "", ""},
      {"whitespace reply", "python", "  \n\t\n", ""},
      {"empty block", "python", "```python\n```", ""},
      {"blank block", "python", "```python\n\n   \n```", ""},
      {"blank lines around", "python", "```python\n\n\nprint(1)\n\n\n```", "print(1)\n"},
      {"indentation of the first line kept", "python", "```python\n\n  x = 1\n```", "  x = 1\n"},
      {"inner blank lines kept", "python", "```python\n\ndef f():\n    return 1\n\nprint(f())\n```",
       "def f():\n    return 1\n\nprint(f())\n"},
      {"no final newline gets one", "bash", "echo a", "echo a\n"},
      {"many final newlines become one", "bash", "echo a\n\n\n\n", "echo a\n"},
  });
}

}  // namespace
}  // namespace coderunner::intent
