#include "coderunner/intent/language_detect.h"

#include <gtest/gtest.h>

namespace coderunner::intent {
namespace {

TEST(LanguageDetectTest, NamesInTheIntentPickTheLanguage) {
  const struct {
    const char* intent;
    const char* language;
  } cases[] = {
      {"add 2 numbers together", ""},
      {"write a JavaScript function that reverses a string", "javascript"},
      {"in JS, sum the array", "javascript"},
      {"a Node.js script that parses the JSON", "javascript"},
      {"using node js, count words", "javascript"},
      {"nodejs: sort the list", "javascript"},
      {"a bash one-liner that counts lines", "bash"},
      {"a shell script that prints the date", "bash"},
      {"with sh, echo it", "bash"},
      {"Python: compute the median", "python"},
      {"write it in python3.", "python"},
      {"count the nodes of the tree", ""},
      {"jsonify the dictionary", ""},
      {"a pythonic way to sum", ""},
      {"shellfish prices", ""},
      {"a bash script, or python if easier", "bash"},
      {"python or javascript, your choice", "python"},
      {"", ""},
  };
  for (const auto& c : cases) EXPECT_EQ(DetectLanguage(c.intent), c.language) << c.intent;
}

}  // namespace
}  // namespace coderunner::intent
