// Preamble: the intent's inputs as variable definitions in the target
// language. Every literal is produced by the escapers below, never pasted:
// python and javascript literals are printable ASCII with every other
// character escaped, bash values are single-quoted (where nothing is
// special but the quote itself). So no input value can end its literal,
// start a statement, or be expanded by the interpreter.
#include "preamble.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>

#include "coderunner/common/utf8.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;

constexpr size_t kMaxNameLength = 64;

// Names a preamble must not define in each language: keywords (a syntax
// error), and names whose shadowing breaks the model's program (builtins
// and modules it will call) or the shell itself (variables bash reads).
const std::set<std::string, std::less<>>& Reserved(std::string_view language) {
  static const std::set<std::string, std::less<>> kPython = {
      // Keywords and soft keywords.
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
      "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
      "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
      "while", "with", "yield", "match", "case", "type",
      // Builtins and modules a short program is likely to use.
      "print", "len", "range", "open", "input", "int", "str", "float", "list", "dict", "set",
      "tuple", "bool", "bytes", "sum", "min", "max", "abs", "round", "sorted", "reversed", "map",
      "filter", "zip", "enumerate", "any", "all", "isinstance", "object", "super", "iter", "next",
      "repr", "format", "chr", "ord", "exec", "eval", "exit", "quit", "json", "sys", "os", "math",
      "re"};
  static const std::set<std::string, std::less<>> kJavaScript = {
      // Reserved words (including strict-mode and contextual ones).
      "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do",
      "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import",
      "in", "instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true",
      "try", "typeof", "var", "void", "while", "with", "yield", "let", "static", "implements",
      "interface", "package", "private", "protected", "public", "await", "async",
      // CommonJS wrapper parameters (redeclaring one is a SyntaxError) and
      // globals a program relies on.
      "require", "module", "exports", "__dirname", "__filename", "console", "process", "JSON",
      "Math", "Object", "Array", "String", "Number", "Boolean", "Promise", "Error", "Date",
      "RegExp", "Map", "Set", "Buffer", "undefined", "NaN", "Infinity", "globalThis", "eval",
      "arguments"};
  // Variables bash reads, sets itself, or keeps read-only (assigning one
  // fails or changes how the rest of the script runs). BASH_* and LC_* are
  // checked by prefix in CheckName.
  static const std::set<std::string, std::less<>> kBash = {
      // Read by bash: they change how it runs, finds commands or expands words.
      "PATH", "IFS", "HOME", "ENV", "BASH_ENV", "CDPATH", "GLOBIGNORE", "SHELLOPTS", "BASHOPTS",
      "PS1", "PS2", "PS3", "PS4", "POSIXLY_CORRECT", "PROMPT_COMMAND", "TMOUT", "OPTIND", "OPTARG",
      "OPTERR", "EXECIGNORE", "FIGNORE", "HISTFILE", "MAIL", "MAILPATH", "INPUTRC", "TIMEFORMAT",
      "COLUMNS", "LINES",
      // Set by bash itself (some read-only: assigning one is an error).
      "BASH", "BASHPID", "PWD", "OLDPWD", "UID", "EUID", "PPID", "GROUPS", "RANDOM", "SRANDOM",
      "SECONDS", "LINENO", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "SHLVL", "REPLY",
      "FUNCNAME", "PIPESTATUS", "DIRSTACK", "EPOCHREALTIME", "EPOCHSECONDS",
      // Environment the commands it starts rely on.
      "SHELL", "TERM", "LANG", "LC_ALL", "LD_PRELOAD", "LD_LIBRARY_PATH", "TMPDIR"};
  static const std::set<std::string, std::less<>> kNone;
  if (language == "python") return kPython;
  if (language == "javascript" || language == "typescript") return kJavaScript;
  if (language == "bash") return kBash;
  return kNone;
}

// TypeScript's preamble is JavaScript's: the same literals and names.
bool IsJavaScriptFamily(std::string_view language) {
  return language == "javascript" || language == "typescript";
}

bool IsKnownLanguage(std::string_view language) {
  return language == "python" || IsJavaScriptFamily(language) || language == "bash";
}

bool IsIdentifier(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(name[0])) return false;
  for (char c : name) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

// A rejected key as it appears in an error message: a JSON string, ASCII
// only and cut short, so a hostile key cannot garble the message or make
// serializing the error fail on invalid UTF-8.
std::string Shown(std::string_view key) {
  std::string cut(key.substr(0, 80));
  return json(cut).dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
}

Status CheckName(std::string_view language, const std::string& name) {
  auto bad = [&](const std::string& why) {
    return InvalidArgumentError("inputs: key " + Shown(name) + " " + why, "invalid_input_name");
  };
  if (!IsIdentifier(name)) {
    return bad(
        "is not a valid variable name (letters, digits and _, not starting with a digit, "
        "at most 64 characters)");
  }
  if (name.starts_with("_cr_")) return bad("uses the prefix _cr_, reserved for coderunner");
  const bool reserved = Reserved(language).count(name) > 0;
  if (language == "python" && (reserved || (name.starts_with("__") && name.size() > 4 &&
                                            name.compare(name.size() - 2, 2, "__") == 0))) {
    // Dunders too: `__name__` would break `if __name__ == "__main__":`.
    return bad("is a Python keyword, builtin or special name the program needs");
  }
  if (IsJavaScriptFamily(language) && reserved) {
    return bad("is a JavaScript reserved word or a global the program needs");
  }
  if (language == "bash" && (reserved || name.starts_with("BASH_") || name.starts_with("LC_"))) {
    return bad("is a shell variable that changes how bash runs");
  }
  return OkStatus();
}

// Decodes the UTF-8 sequence at s[i] and advances i past it. `s` must be
// valid UTF-8 (checked by the caller), so no bounds or range checks here.
uint32_t NextCodePoint(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i++]);
  if (c < 0x80) return c;
  int extra = c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  uint32_t cp = c & (0x3F >> extra);
  for (int k = 0; k < extra; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i++]) & 0x3F);
  return cp;
}

std::string Hex(const char* format, uint32_t v) {
  char buf[16];
  snprintf(buf, sizeof(buf), format, static_cast<unsigned>(v));
  return buf;
}

// The escape for a code point both Python and JavaScript spell the same
// way, or "" if the caller must decide (quotes, non-ASCII).
std::string CommonEscape(uint32_t cp) {
  switch (cp) {
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      break;
  }
  // \x00 rather than \0: in JavaScript "\0" followed by a digit is an
  // octal escape, a SyntaxError in strict code.
  if (cp < 0x20 || cp == 0x7F) return Hex("\\x%02x", cp);
  return "";
}

// Python: single-quoted, printable ASCII only. A single-quoted literal
// cannot be closed by ''' or """ inside the value, as both are escaped.
std::string PythonString(std::string_view s) {
  std::string out = "'";
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = NextCodePoint(s, i);
    if (std::string e = CommonEscape(cp); !e.empty()) {
      out += e;
    } else if (cp == '\'') {
      out += "\\'";
    } else if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp <= 0xFFFF) {
      out += Hex("\\u%04x", cp);
    } else {
      out += Hex("\\U%08x", cp);
    }
  }
  return out + "'";
}

// JavaScript: double-quoted, printable ASCII only; U+2028/U+2029 (line
// terminators in older engines) and astral characters (as surrogate pairs)
// are \u escapes like every other non-ASCII character. A double-quoted
// literal never expands ${...}, and "</script>" is harmless outside HTML.
std::string JsString(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = NextCodePoint(s, i);
    if (std::string e = CommonEscape(cp); !e.empty()) {
      out += e;
    } else if (cp == '"') {
      out += "\\\"";
    } else if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp <= 0xFFFF) {
      out += Hex("\\u%04x", cp);
    } else {
      uint32_t v = cp - 0x10000;
      out += Hex("\\u%04x", 0xD800 + (v >> 10)) + Hex("\\u%04x", 0xDC00 + (v & 0x3FF));
    }
  }
  return out + "\"";
}

// Bash: inside single quotes every byte is literal ($, `, \, newlines,
// non-ASCII alike); only the quote itself must end the string, be escaped
// and start a new one.
std::string BashString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string TypeOf(const json& v) {
  switch (v.type()) {
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "null";
  }
}

}  // namespace

StatusOr<std::string> ScalarLiteral(std::string_view language, const json& value) {
  if (!IsKnownLanguage(language)) {
    return InvalidArgumentError("no literals for language " + Shown(language), "unknown_language");
  }
  if (value.is_array() || value.is_object() || value.is_binary() || value.is_discarded()) {
    return InvalidArgumentError("is not a scalar", "invalid_input_value");
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    // The escapers decode UTF-8, and params.json must serialize; parsed
    // JSON is always valid, so this only stops values built in code.
    if (!IsValidUtf8(s)) return InvalidArgumentError("is not valid UTF-8", "invalid_input_value");
    if (language == "python") return PythonString(s);
    if (IsJavaScriptFamily(language)) return JsString(s);
    if (s.find('\0') != std::string::npos) {
      return InvalidArgumentError("holds a NUL byte, which a bash variable cannot",
                                  "invalid_input_value");
    }
    return BashString(s);
  }
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    // JSON text cannot hold one; dump() would print null, which is not a
    // number (and not a name) in Python.
    return InvalidArgumentError("is not a finite number", "invalid_input_value");
  }
  if (language == "bash") {
    if (value.is_null()) return std::string("''");
    return BashString(value.dump());  // Numbers, true and false as their JSON text.
  }
  if (value.is_boolean()) {
    if (language == "python") return std::string(value.get<bool>() ? "True" : "False");
    return std::string(value.get<bool>() ? "true" : "false");
  }
  if (value.is_null()) return std::string(language == "python" ? "None" : "null");
  // nlohmann prints integers exactly (all 64 bits, signed or unsigned) and
  // floats in shortest round-trip form with a '.' or an exponent (1.0,
  // 1e+300, 5e-324): valid literals in both languages. JavaScript rounds
  // integers beyond 2^53 as JSON.parse would.
  return value.dump();
}

StatusOr<Preamble> BuildPreamble(std::string_view language, const json& inputs) {
  if (!IsKnownLanguage(language)) {
    return InvalidArgumentError("no preamble for language " + Shown(language), "unknown_language");
  }
  Preamble p;
  if (inputs.is_null()) return p;
  if (!inputs.is_object()) {
    return InvalidArgumentError("inputs: must be an object of named values", "invalid_inputs");
  }
  if (inputs.empty()) return p;
  const bool python = language == "python";
  const bool js = IsJavaScriptFamily(language);
  std::string body;
  for (const auto& [name, value] : inputs.items()) {
    CR_RETURN_IF_ERROR(CheckName(language, name));
    p.variables.push_back({name, TypeOf(value)});
    std::string literal;
    if (value.is_array() || value.is_object()) {
      p.uses_params_file = true;
      if (python) {
        literal = "_cr_params[" + PythonString(name) + "]";
      } else if (js) {
        literal = "_cr_params[" + JsString(name) + "]";
      } else {
        // Bash has no nested values: the variable holds the compact JSON
        // text (for jq), and the file has it too. dump() throws only on
        // invalid UTF-8, which parsed JSON never holds.
        std::string text;
        try {
          text = value.dump();
        } catch (const json::exception&) {
          return InvalidArgumentError("inputs: " + Shown(name) +
                                          " holds a string that is not "
                                          "valid UTF-8",
                                      "invalid_input_value");
        }
        literal = BashString(text);
      }
    } else {
      auto scalar = ScalarLiteral(language, value);
      if (!scalar.ok()) {
        return InvalidArgumentError("inputs: " + Shown(name) + " " + scalar.status().message(),
                                    scalar.status().reason());
      }
      literal = std::move(scalar).value();
    }
    if (python) {
      body += name + " = " + literal + "\n";
    } else if (js) {
      body += "const " + name + " = " + literal + ";\n";
    } else {
      body += name + "=" + literal + "\n";
    }
  }
  const std::string comment = js ? "// " : "# ";
  std::string head = comment + "--- inputs (set by coderunner; do not redefine) ---\n";
  // The helper names start with _cr_, which no input may use.
  if (p.uses_params_file && python) {
    head += "import json as _cr_json\nwith open(" + PythonString(kParamsPath) +
            ", encoding='utf-8') as _cr_f:\n    _cr_params = _cr_json.load(_cr_f)\n";
  } else if (p.uses_params_file && language == "typescript") {
    // An import declaration, which both of the TypeScript runner's modes
    // take (images/node/ts-run.cjs), and which is hoisted, so it may
    // precede the program's own.
    head +=
        "import { readFileSync as _cr_readFileSync } from \"node:fs\";\n"
        "const _cr_params = JSON.parse(_cr_readFileSync(" +
        JsString(kParamsPath) + ", \"utf8\"));\n";
  } else if (p.uses_params_file && js) {
    head += "const _cr_params = JSON.parse(require(\"fs\").readFileSync(" + JsString(kParamsPath) +
            ", \"utf8\"));\n";
  }
  p.text = head + body + comment + "--- end of inputs ---\n";
  for (char c : p.text) p.lines += c == '\n';
  return p;
}

JoinedProgram JoinProgram(std::string_view language, const Preamble& preamble,
                          std::string_view code) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < code.size();) {
    size_t end = code.find('\n', start);
    if (end == std::string_view::npos) end = code.size();
    lines.push_back(code.substr(start, end - start));
    start = end + 1;
  }
  const bool trailing_newline = !code.empty() && code.back() == '\n';
  std::string hoisted;
  int hoisted_lines = 0;
  std::vector<bool> blank(lines.size(), false);
  if (!lines.empty() && lines[0].substr(0, 2) == "#!") blank[0] = true;
  if (language == "python") {
    // __future__ imports must precede every other statement; only comments,
    // blank lines and other __future__ imports may come before them.
    for (size_t i = 0; i < lines.size(); ++i) {
      if (blank[i]) continue;
      std::string_view l = lines[i];
      size_t first = l.find_first_not_of(" \t\r");
      if (first == std::string_view::npos || l[first] == '#') continue;
      if (first != 0 || l.substr(0, 23) != "from __future__ import ") break;
      // A continued import (backslash or parenthesis) is left in place: the
      // run then fails with Python's own error, which the retry loop reports.
      if (l.find('(') != std::string_view::npos || l.back() == '\\') break;
      hoisted.append(l);
      hoisted.push_back('\n');
      ++hoisted_lines;
      blank[i] = true;
    }
  }
  JoinedProgram out;
  out.line_offset = hoisted_lines + preamble.lines;
  out.text.reserve(hoisted.size() + preamble.text.size() + code.size());
  out.text = hoisted + preamble.text;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!blank[i]) out.text.append(lines[i]);
    if (i + 1 < lines.size() || trailing_newline) out.text.push_back('\n');
  }
  return out;
}

}  // namespace coderunner::intent
