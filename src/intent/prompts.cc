#include "prompts.h"

#include "verify_checks.h"

namespace coderunner::intent {
namespace {

constexpr size_t kFormatStdoutBytes = 4096;
constexpr size_t kFormatInputsBytes = 2048;

std::string FenceTag(std::string_view language) {
  if (language == "javascript") return "javascript";
  if (language == "typescript") return "ts";
  if (language == "bash") return "bash";
  return "python";
}

// A block the model reads as data: the longest run of backticks inside
// cannot close it early.
std::string Quoted(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string out = fence + "\n" + std::string(text);
  if (out.back() != '\n') out += "\n";
  return out + fence + "\n";
}

// The line comment of `language`: a checks block starts with one.
std::string CommentMark(std::string_view language) {
  return language == "javascript" || language == "typescript" ? "//" : "#";
}

}  // namespace

std::string LanguageDisplayName(std::string_view language) {
  if (language == "javascript") return "JavaScript (Node.js 20, CommonJS)";
  if (language == "typescript") return "TypeScript (Node.js 20, run as tsx runs it)";
  if (language == "bash") return "Bash 5.2";
  return "Python 3.11";
}

std::vector<ChatMessage> AgentWriterMessages(std::string_view intent, std::string_view language) {
  std::string system =
      "You design code-writing agents for a sandboxed code runner. An agent is a system prompt "
      "that makes a model write small, correct, self-contained programs for one kind of task. "
      "Programs run with no network, a read-only /workspace, a small writable /tmp, and the "
      "standard library only; inputs are predefined variables; the answer is printed to "
      "stdout.";
  std::string user =
      "Write an agent for tasks like the one below, in " + LanguageDisplayName(language) +
      ".\n\nTask:\n" + Quoted(intent) +
      "\nReply with one JSON object and nothing else:\n"
      "{\"name\": \"short-kebab-case-name\", \"description\": \"one line\", "
      "\"keywords\": [\"lower-case words describing the domain\"], "
      "\"system_prompt\": \"the agent's instructions\", "
      "\"conventions\": [\"short rules\"]}\n"
      "The system prompt must require: the smallest possible program; the standard library "
      "only; no network; printing only the final answer to stdout; a pure function where it "
      "fits; using the predefined input variables without redefining them; replying with one "
      "fenced code block.";
  return {{"system", system}, {"user", user}};
}

std::vector<ChatMessage> CodeMessages(const AgentProfile& agent, const CodeTask& task) {
  std::string user = "Task:\n" + Quoted(task.intent) +
                     "\nLanguage: " + LanguageDisplayName(task.language) +
                     "; your program is saved as /workspace/" + task.program_file + ".\n";
  if (task.preamble != nullptr && !task.preamble->variables.empty()) {
    user +=
        "\nInputs: a preamble that runs before your code already defines these variables. Use "
        "them by name; do not redefine, re-read or hard-code them:\n";
    for (const auto& v : task.preamble->variables) {
      user += "- " + v.name + ": " + v.type;
      if (v.type == "array" || v.type == "object") {
        user += task.language == "bash"
                    ? " (its JSON text; also the key \"" + v.name + "\" of /workspace/params.json)"
                    : " (also the key \"" + v.name + "\" of /workspace/params.json, read-only)";
      }
      user += "\n";
    }
  } else {
    user += "\nThere are no inputs.\n";
  }
  user +=
      "\nRules: the smallest complete program; standard library only (nothing to install, no "
      "network); print only the final answer to stdout, errors to stderr; /workspace is "
      "read-only, /tmp is writable";
  user += task.has_volume ? ", and files the task asks for go to /output (kept for the user).\n"
                          : ".\n";
  user += "Reply with exactly one ```" + FenceTag(task.language) +
          " fenced code block containing the whole program, and nothing else.";
  return {{"system", RenderSystemPrompt(agent)}, {"user", user}};
}

std::string FixMessage(const FailedAttempt& failed) {
  if (failed.no_code) {
    return "Your reply contained no program. Reply with exactly one fenced code block containing "
           "the whole program, and nothing else.";
  }
  std::string m = "The program " + failed.outcome + ".";
  if (!failed.error.type.empty() || !failed.error.message.empty()) {
    m += "\nError: " + failed.error.type + (failed.error.type.empty() ? "" : ": ") +
         failed.error.message;
    if (failed.error.line > 0)
      m += " (line " + std::to_string(failed.error.line) + " of your code)";
  }
  if (!failed.stderr_tail.empty()) m += "\n\nstderr:\n" + Quoted(failed.stderr_tail);
  if (!failed.stdout_tail.empty()) m += "\nstdout:\n" + Quoted(failed.stdout_tail);
  m += "\nMake the minimal fix and reply with the whole corrected program in one fenced code "
       "block, and nothing else.";
  return m;
}

std::vector<ChatMessage> ChecksMessages(const ChecksTask& checks) {
  const CodeTask& task = *checks.task;
  std::string system =
      "You write checks for a program another model wrote, to catch a wrong answer before it "
      "reaches the person who asked. Your checks run in the same sandbox as the program, after "
      "it exited 0: no network, the standard library only, /workspace read-only, /tmp writable.";
  // No "Language: " line: that is the code-writing prompt's.
  std::string user = "Task:\n" + Quoted(task.intent) + "\nThe program, in " +
                     LanguageDisplayName(task.language) + ", is /workspace/" + task.program_file +
                     "; your checks are saved as /workspace/" + checks.checks_file +
                     " and run with the same command.\n";
  if (task.preamble != nullptr && !task.preamble->variables.empty()) {
    user += "The same preamble defines the task's input variables in your checks too:";
    for (const auto& v : task.preamble->variables) user += " " + v.name + " (" + v.type + ")";
    user += ".\n";
  }
  user += "\nThe program:\n" + Quoted(checks.program) +
          "\nWrite checks that would catch a wrong answer:\n"
          "- examples: call the program's functions (import them from its file when it keeps "
          "its top-level work behind a main guard) on small cases whose expected results you "
          "work out from the task yourself, edge cases included (empty input, negatives, "
          "duplicates, Unicode);\n"
          "- properties: read the program's real stdout from the file " +
          std::string(kProgramOutputPath) +
          " and check what must hold of it (the count asked for, the order, sums, units, the "
          "format).\n"
          "Never compute an expected value with the program's own logic.\n"
          "Print one line per check to stdout and nothing else: `CHECK PASS example <name>`, or "
          "`CHECK FAIL example <name> | <what you got>` (`property` for a property). Exit 0 once "
          "every check ran.\n"
          "Reply with exactly one ```" +
          FenceTag(task.language) + " fenced code block whose first line is the comment `" +
          CommentMark(task.language) + " checks`, and nothing else.";
  return {{"system", system}, {"user", user}};
}

std::string ChecksFixMessage(const FailedChecks& failed, std::string_view language) {
  std::string m;
  if (!failed.judge_problem.empty()) {
    m = "The program ran and its checks passed, but its output does not answer the task as "
        "asked: " +
        failed.judge_problem + "\n";
  } else if (failed.broken) {
    m = "The program ran, but its checks did not: they crashed or reported no check.\n";
    if (!failed.checks_output_tail.empty()) {
      m += "Their output:\n" + Quoted(failed.checks_output_tail);
    }
  } else {
    m = "The program ran, but " + std::to_string(failed.failed.size()) + " of its checks failed:\n";
    for (const auto& f : failed.failed) m += "- " + f + "\n";
  }
  if (!failed.checks_code.empty()) m += "\nThe checks:\n" + Quoted(failed.checks_code);
  m += "\nMake the minimal fix to the program and reply with the whole corrected program in one "
       "fenced code block, keeping the names the checks use. If instead a check itself is wrong "
       "(its expected value contradicts the task), do not bend the program to it: reply with a "
       "line `Wrong check: <name>: <why>` and the whole corrected checks in one fenced code block "
       "whose first line is the comment `" +
       CommentMark(language) + " checks` (the program block may then be left out).";
  return m;
}

std::vector<ChatMessage> JudgeMessages(std::string_view intent, std::string_view inputs_json,
                                       std::string_view stdout_text) {
  std::string system =
      "You check whether a program's output answers the question that was asked, exactly as "
      "asked: the count, the unit, the order, the format. You do not recompute the answer.";
  std::string user = "Task:\n" + Quoted(intent);
  if (!inputs_json.empty() && inputs_json != "null") {
    user += "\nInputs:\n" + Quoted(inputs_json.substr(0, kFormatInputsBytes));
  }
  user += "\nOutput:\n" + Quoted(stdout_text.substr(0, kFormatStdoutBytes)) +
          "\nReply with one JSON object and nothing else: {\"answers\": true} if the output "
          "answers the task as asked, else {\"answers\": false, \"problem\": \"what differs, "
          "in one line\"}.";
  return {{"system", system}, {"user", user}};
}

std::vector<ChatMessage> FormatMessages(std::string_view intent, std::string_view inputs_json,
                                        std::string_view stdout_text) {
  std::string system =
      "You turn a program's raw output into a short answer for the person who asked, for "
      "example \"Result: 2\". Reply with the answer only: one or two lines, no code, no "
      "explanation of how it was computed. Never invent values that are not in the output.";
  std::string user = "Task:\n" + Quoted(intent);
  if (!inputs_json.empty() && inputs_json != "null") {
    user += "\nInputs:\n" + Quoted(inputs_json.substr(0, kFormatInputsBytes));
  }
  user += "\nRaw output:\n" + Quoted(stdout_text.substr(0, kFormatStdoutBytes));
  return {{"system", system}, {"user", user}};
}

}  // namespace coderunner::intent
