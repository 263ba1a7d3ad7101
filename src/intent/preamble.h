// Preamble: the intent's inputs as variable definitions, written by the
// service (never by the model) in the target language and prepended to the
// model's program.
#ifndef CODERUNNER_INTENT_PREAMBLE_H_
#define CODERUNNER_INTENT_PREAMBLE_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::intent {

// Where arrays and objects (and every input) are, read-only, in the job.
inline constexpr const char* kParamsPath = "/workspace/params.json";

struct InputVariable {
  std::string name;
  // "integer", "number", "string", "boolean", "null", "array", "object".
  std::string type;
};

struct Preamble {
  std::string text;                      // "" when there are no inputs; else ends with '\n'.
  int lines = 0;                         // Lines of `text` (the model's line N is line N + lines).
  std::vector<InputVariable> variables;  // In key order.
  bool uses_params_file = false;         // An array or object reads params.json.
};

// The preamble defining every key of `inputs` (an object, or null for none)
// in `language` ("python", "javascript", "typescript", "bash"), in key
// order, between a "--- inputs" and an "--- end of inputs" comment line.
// typescript's preamble is javascript's, except that it reads params.json
// through an import (it runs as an ES module). Scalars become literals
// escaped by this function (printable ASCII for python, javascript and
// typescript; single-quoted for bash, where numbers and booleans are their
// JSON text and null is ''). Arrays and objects are read from kParamsPath,
// which the caller writes (bash gets their compact JSON text instead).
// Errors, all InvalidArgument, by reason: "unknown_language";
// "invalid_inputs" (not an object or null); "invalid_input_name" (not
// [A-Za-z_][A-Za-z0-9_]{0,63}, the reserved prefix _cr_, or a keyword,
// shadowing-prone builtin or global, Python dunder, or bash special
// variable incl. BASH_* and LC_*); "invalid_input_value" (a NUL byte for
// bash, a string that is not UTF-8, a non-finite number). Messages quote
// the key JSON-escaped. Pure; thread-safe.
StatusOr<Preamble> BuildPreamble(std::string_view language, const nlohmann::json& inputs);

// The literal BuildPreamble writes for one JSON scalar in `language`
// (exposed for tests). InvalidArgument "invalid_input_value" for an array,
// an object or a value BuildPreamble rejects; "unknown_language". Pure;
// thread-safe.
StatusOr<std::string> ScalarLiteral(std::string_view language, const nlohmann::json& value);

// The program a job runs: `preamble` followed by the model's `code`, with
// what must come first kept first. A leading "#!" line of `code` is blanked
// (after a preamble it is a syntax error in javascript and meaningless
// elsewhere). In python, `from __future__ import` lines at the top of `code`
// (after comments, blank lines and a docstring-free start) are moved above
// the preamble and blanked where they were. Blanking keeps the model's line
// N at line N + line_offset of the result. Pure; thread-safe.
struct JoinedProgram {
  std::string text;
  int line_offset = 0;  // Lines before the model's line 1.
};
JoinedProgram JoinProgram(std::string_view language, const Preamble& preamble,
                          std::string_view code);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_PREAMBLE_H_
