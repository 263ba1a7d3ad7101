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
// in `language` ("python", "javascript", "bash"). Scalars become literals
// escaped by this function (pure ASCII for python and javascript; bash
// single-quotes); arrays and objects are read from params.json (bash gets
// their JSON text). InvalidArgument: "invalid_inputs" (not an object),
// "unknown_language", "invalid_input_name" (not an identifier, reserved
// prefix _cr_, or a keyword / shadowing-prone builtin / shell special
// variable of the language), "invalid_input_value" (a NUL byte for bash).
// Pure; thread-safe.
StatusOr<Preamble> BuildPreamble(std::string_view language, const nlohmann::json& inputs);

// The literal for one JSON scalar in `language` (exposed for tests).
// Arrays and objects are not scalars: InvalidArgument.
StatusOr<std::string> ScalarLiteral(std::string_view language, const nlohmann::json& value);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_PREAMBLE_H_
