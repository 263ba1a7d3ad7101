// The test cases of `coderunner judge`: a directory of NAME.in (the
// case's stdin) and NAME.out or NAME.ans (its expected output) pairs, the
// layout most judges and problem archives use.
#ifndef CODERUNNER_CLI_JUDGE_CASES_H_
#define CODERUNNER_CLI_JUDGE_CASES_H_

#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::cli {

struct CaseFiles {
  std::string name;      // NAME.
  std::string input;     // Path of NAME.in; "" when there is none (empty stdin).
  std::string expected;  // Path of NAME.out (or NAME.ans).
};

// The cases in `dir`, in natural order of their names (2 before 10). Each
// NAME.out or NAME.ans is a case; NAME.in is its stdin. Errors (InvalidArgument,
// reason "usage"): `dir` unreadable, no case at all, a NAME.in without an
// expected output, a NAME with both .out and .ans.
StatusOr<std::vector<CaseFiles>> FindCases(const std::string& dir);

// Natural order: digit runs compare as numbers, the rest byte by byte.
bool NaturalLess(const std::string& a, const std::string& b);

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_JUDGE_CASES_H_
