#include "prompts.h"

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
