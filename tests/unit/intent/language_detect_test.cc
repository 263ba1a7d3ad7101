#include "intent/language_detect.h"

#include <gtest/gtest.h>

namespace coderunner::intent {
namespace {

TEST(LanguageDetectTest, NamedLanguagesAreFoundAsWholeWords) {
  const struct {
    const char* intent;
    const char* language;
  } cases[] = {
      // Nothing named: the caller's default applies.
      {"add 2 numbers together", ""},
      {"", ""},
      {"reverse the string 'hello'", ""},
      // JavaScript and its aliases.
      {"write a JavaScript function that reverses a string", "javascript"},
      {"in JS, sum the array", "javascript"},
      {"JS-style: map over the items", "javascript"},
      {"a Node.js script that parses the JSON", "javascript"},
      {"using node js, count words", "javascript"},
      {"nodejs: sort the list", "javascript"},
      {"written in ECMAScript", "javascript"},
      // TypeScript, also over a JavaScript mention (it runs on Node.js).
      {"sum the primes below 100 in TypeScript", "typescript"},
      {"TS: a generic stack class", "typescript"},
      {"written in typescript.", "typescript"},
      {"a Node.js script in TypeScript", "typescript"},
      {"convert this JavaScript to TypeScript", "typescript"},
      {"tsconfig options explained", ""},
      {"the first 10 timestamps", ""},
      // Bash.
      {"a bash one-liner that counts lines", "bash"},
      {"a shell script that prints the date", "bash"},
      {"with sh, echo it", "bash"},
      {"write a .sh file that lists the directory", "bash"},
      {"BASH: print the PATH", "bash"},
      // Python.
      {"Python: compute the median", "python"},
      {"write it in python3.", "python"},
      {"in Python 3.11, parse the date", "python"},
      {"use python3.12 to sum", "python"},
      {"a .py program that prints primes", "python"},
      {"Python's statistics module: the mean", "python"},
      // Substrings and look-alikes name nothing.
      {"count the nodes of the tree", ""},
      {"find the node with the largest value", ""},
      {"jsonify the dictionary", ""},
      {"a pythonic way to sum", ""},
      {"shellfish prices", ""},
      {"bashful greeting", ""},
      {"save the result as out.py", ""},
      {"a pyramid of stars", ""},
      // Several named: the earliest wins.
      {"a bash script, or python if easier", "bash"},
      {"python or javascript, your choice", "python"},
      {"not in node js but in python", "javascript"},
      {"in python, not typescript", "python"},
  };
  for (const auto& c : cases) EXPECT_EQ(DetectLanguage(c.intent), c.language) << c.intent;
}

}  // namespace
}  // namespace coderunner::intent
