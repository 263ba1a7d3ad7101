// Prompts: every message Execute mode sends to the model.
//
// The intent and the inputs' names and types are data inside our prompts;
// the inputs' values never are (the preamble carries them into the program,
// see preamble.h). All functions are pure and thread-safe.
#ifndef CODERUNNER_INTENT_PROMPTS_H_
#define CODERUNNER_INTENT_PROMPTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "coderunner/intent/agent_catalog.h"
#include "coderunner/intent/llm_client.h"
#include "error_summary.h"
#include "preamble.h"

namespace coderunner::intent {

// What the code-writing prompt tells the model about the task.
struct CodeTask {
  std::string intent;
  std::string language;                // "python", "javascript", "bash".
  std::string program_file;            // e.g. "main.py" (under /workspace).
  const Preamble* preamble = nullptr;  // Not owned; must outlive the call.
  bool has_volume = false;             // /output is the caller's persistent volume.
};

// How an attempt went wrong, for the fix-it message.
struct FailedAttempt {
  std::string outcome;      // e.g. "exited with code 1", "was killed after 5000 ms (timeout)".
  ErrorSummary error;       // From stderr; may be empty.
  std::string stderr_tail;  // Last bytes of stderr (the traceback).
  std::string stdout_tail;  // Last bytes of stdout.
  bool no_code = false;     // The reply held no program at all.
};

// System + user messages asking the model to write an agent profile (JSON,
// see ParseGeneratedProfile) for intents like `intent` in `language`.
std::vector<ChatMessage> AgentWriterMessages(std::string_view intent, std::string_view language);

// System (the agent's) + user messages asking for the program.
std::vector<ChatMessage> CodeMessages(const AgentProfile& agent, const CodeTask& task);

// The user message after a failed attempt: what happened, the error (type,
// message, line), the stderr tail, and a request for the minimal fix.
std::string FixMessage(const FailedAttempt& failed);

// What the checks-writing prompt tells the model: the task, and the
// program the checks are for (never its output).
struct ChecksTask {
  const CodeTask* task = nullptr;  // Not owned; must outlive the call.
  std::string program;             // The model's code (without the preamble).
  std::string checks_file;         // e.g. "checks.py" (under /workspace).
};

// System + user messages asking for checks of `checks.program`
// (verify_checks.h: how they run and what they print).
std::vector<ChatMessage> ChecksMessages(const ChecksTask& checks);

// How a verify run's checks went wrong, for the fix-it message.
struct FailedChecks {
  std::vector<std::string> failed;  // "example <name>: <detail>" per failed check.
  std::string checks_code;          // The checks as they ran.
  std::string checks_output_tail;   // Their own output, when they broke.
  bool broken = false;              // They crashed or reported no check.
  std::string judge_problem;        // full mode: what the judge found, else "".
};

// The user message after checks failed: which, the checks, and a request
// for the minimal fix of the program, or, if a check is wrong, for the
// corrected checks and why ("Wrong check: ...").
std::string ChecksFixMessage(const FailedChecks& failed, std::string_view language);

// System + user messages asking the model whether `stdout_text` answers
// the task exactly as asked; the reply is {"answers": bool, "problem": "..."}.
std::vector<ChatMessage> JudgeMessages(std::string_view intent, std::string_view inputs_json,
                                       std::string_view stdout_text);

// System + user messages asking for a short answer (e.g. "Result: 2") from
// the program's raw stdout (its first 4 KiB).
std::vector<ChatMessage> FormatMessages(std::string_view intent, std::string_view inputs_json,
                                        std::string_view stdout_text);

// "Python 3.11", "JavaScript (Node.js 20, CommonJS)", "TypeScript (Node.js
// 20, run with tsx, an ES module)", "Bash 5.2".
std::string LanguageDisplayName(std::string_view language);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_PROMPTS_H_
