#include "coderunner/intent/preamble.h"

#include <cstdio>
#include <set>

namespace coderunner::intent {
namespace {

using nlohmann::json;

// Names a preamble must not define: keywords, and names whose shadowing
// breaks the program (builtins the model will call) or the shell itself.
const std::set<std::string>& Reserved(std::string_view language) {
  static const std::set<std::string> kPython = {
      "False",   "None",     "True",     "and",    "as",        "assert", "async",  "await",
      "break",   "class",    "continue", "def",    "del",       "elif",   "else",   "except",
      "finally", "for",      "from",     "global", "if",        "import", "in",     "is",
      "lambda",  "nonlocal", "not",      "or",     "pass",      "raise",  "return", "try",
      "while",   "with",     "yield",    "match",  "case",      "type",   "print",  "len",
      "range",   "open",     "input",    "int",    "str",       "float",  "list",   "dict",
      "set",     "tuple",    "bool",     "sum",    "min",       "max",    "abs",    "round",
      "sorted",  "map",      "filter",   "zip",    "enumerate", "any",    "all",    "isinstance",
      "object",  "super",    "iter",     "next",   "repr",      "format", "chr",    "ord",
      "json",    "sys",      "os",       "math",   "re",        "exit",   "quit"};
  static const std::set<std::string> kJavaScript = {
      "break",      "case",      "catch",     "class",     "const",      "continue",   "debugger",
      "default",    "delete",    "do",        "else",      "enum",       "export",     "extends",
      "false",      "finally",   "for",       "function",  "if",         "import",     "in",
      "instanceof", "new",       "null",      "return",    "super",      "switch",     "this",
      "throw",      "true",      "try",       "typeof",    "var",        "void",       "while",
      "with",       "yield",     "let",       "static",    "implements", "interface",  "package",
      "private",    "protected", "public",    "await",     "async",      "console",    "require",
      "process",    "module",    "exports",   "JSON",      "Math",       "Object",     "Array",
      "String",     "Number",    "Boolean",   "Promise",   "Error",      "Date",       "RegExp",
      "Map",        "Set",       "undefined", "NaN",       "Infinity",   "globalThis", "eval",
      "arguments",  "Buffer",    "__dirname", "__filename"};
  static const std::set<std::string> kBash = {"PATH",
                                              "IFS",
                                              "HOME",
                                              "ENV",
                                              "BASH_ENV",
                                              "CDPATH",
                                              "GLOBIGNORE",
                                              "SHELLOPTS",
                                              "BASHOPTS",
                                              "PS1",
                                              "PS2",
                                              "PS3",
                                              "PS4",
                                              "PWD",
                                              "OLDPWD",
                                              "UID",
                                              "EUID",
                                              "PPID",
                                              "RANDOM",
                                              "SECONDS",
                                              "LINENO",
                                              "HOSTNAME",
                                              "SHELL",
                                              "TERM",
                                              "LANG",
                                              "LC_ALL",
                                              "LD_PRELOAD",
                                              "LD_LIBRARY_PATH",
                                              "POSIXLY_CORRECT",
                                              "PROMPT_COMMAND",
                                              "TMOUT",
                                              "OPTIND",
                                              "OPTARG",
                                              "OPTERR",
                                              "REPLY",
                                              "FUNCNAME",
                                              "GROUPS",
                                              "HISTFILE",
                                              "MAIL",
                                              "MAILPATH",
                                              "EPOCHREALTIME",
                                              "EPOCHSECONDS",
                                              "SRANDOM",
                                              "COLUMNS",
                                              "LINES",
                                              "TMPDIR",
                                              "PIPESTATUS",
                                              "DIRSTACK",
                                              "HOSTTYPE",
                                              "OSTYPE",
                                              "MACHTYPE",
                                              "SHLVL",
                                              "BASHPID",
                                              "EXECIGNORE",
                                              "FIGNORE",
                                              "INPUTRC",
                                              "TIMEFORMAT"};
  static const std::set<std::string> kNone;
  if (language == "python") return kPython;
  if (language == "javascript") return kJavaScript;
  if (language == "bash") return kBash;
  return kNone;
}

bool IsIdentifier(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(name[0])) return false;
  for (char c : name) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

Status CheckName(std::string_view language, const std::string& name) {
  auto bad = [&](const std::string& why) {
    return InvalidArgumentError("inputs: '" + name.substr(0, 80) + "' " + why,
                                "invalid_input_name");
  };
  if (!IsIdentifier(name)) {
    return bad(
        "is not a valid variable name (letters, digits and _, not starting with a digit, "
        "at most 64)");
  }
  if (name.rfind("_cr_", 0) == 0) return bad("uses the prefix _cr_, reserved for coderunner");
  if (Reserved(language).count(name) > 0 ||
      (language == "bash" && (name.rfind("BASH", 0) == 0 || name.rfind("LC_", 0) == 0))) {
    return bad("is reserved in " + std::string(language) +
               " (a keyword, a builtin the program needs, or a shell variable)");
  }
  return OkStatus();
}

// Decodes one UTF-8 sequence at s[i] (valid: nlohmann checked it on
// parse); advances i.
uint32_t NextCodePoint(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1F) : extra == 2 ? (c & 0x0F) : (c & 0x07);
  ++i;
  for (int k = 0; k < extra && i < s.size(); ++k, ++i) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[i]) & 0x3F);
  }
  return cp;
}

std::string Hex(const char* format, uint32_t v) {
  char buf[16];
  snprintf(buf, sizeof(buf), format, v);
  return buf;
}

// Python: single-quoted, pure ASCII.
std::string PythonString(std::string_view s) {
  std::string out = "'";
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = NextCodePoint(s, i);
    if (cp == '\\')
      out += "\\\\";
    else if (cp == '\'')
      out += "\\'";
    else if (cp == '\n')
      out += "\\n";
    else if (cp == '\r')
      out += "\\r";
    else if (cp == '\t')
      out += "\\t";
    else if (cp < 0x20 || cp == 0x7F)
      out += Hex("\\x%02x", cp);
    else if (cp < 0x80)
      out += static_cast<char>(cp);
    else if (cp <= 0xFFFF)
      out += Hex("\\u%04x", cp);
    else
      out += Hex("\\U%08x", cp);
  }
  return out + "'";
}

// JavaScript: double-quoted, pure ASCII (so U+2028/2029 are escapes too).
std::string JsString(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = NextCodePoint(s, i);
    if (cp == '\\')
      out += "\\\\";
    else if (cp == '"')
      out += "\\\"";
    else if (cp == '\n')
      out += "\\n";
    else if (cp == '\r')
      out += "\\r";
    else if (cp == '\t')
      out += "\\t";
    else if (cp < 0x20 || cp == 0x7F)
      out += Hex("\\x%02x", cp);
    else if (cp < 0x80)
      out += static_cast<char>(cp);
    else if (cp <= 0xFFFF)
      out += Hex("\\u%04x", cp);
    else {
      uint32_t v = cp - 0x10000;
      out += Hex("\\u%04x", 0xD800 + (v >> 10)) + Hex("\\u%04x", 0xDC00 + (v & 0x3FF));
    }
  }
  return out + "\"";
}

// Bash: single quotes keep every byte literal; a quote ends, is escaped,
// and starts again.
std::string BashString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
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
  if (value.is_array() || value.is_object()) {
    return InvalidArgumentError("not a scalar", "invalid_input_value");
  }
  if (language == "bash") {
    if (value.is_string()) {
      const std::string& s = value.get_ref<const std::string&>();
      if (s.find('\0') != std::string::npos) {
        return InvalidArgumentError("a bash variable cannot hold a NUL byte",
                                    "invalid_input_value");
      }
      return BashString(s);
    }
    if (value.is_null()) return std::string("''");
    return BashString(value.dump());  // Numbers and true/false as their text.
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    return language == "python" ? PythonString(s) : JsString(s);
  }
  if (value.is_boolean()) {
    if (language == "python") return std::string(value.get<bool>() ? "True" : "False");
    return std::string(value.get<bool>() ? "true" : "false");
  }
  if (value.is_null()) return std::string(language == "python" ? "None" : "null");
  // nlohmann prints integers exactly and floats in round-trip form with a
  // '.' or exponent (1.0, 1e+300): valid literals in both languages.
  return value.dump();
}

StatusOr<Preamble> BuildPreamble(std::string_view language, const json& inputs) {
  if (language != "python" && language != "javascript" && language != "bash") {
    return InvalidArgumentError("no preamble for language '" + std::string(language) + "'",
                                "unknown_language");
  }
  Preamble p;
  if (inputs.is_null()) return p;
  if (!inputs.is_object()) {
    return InvalidArgumentError("inputs: must be an object of named values", "invalid_inputs");
  }
  if (inputs.empty()) return p;
  const bool js = language == "javascript";
  const std::string comment = js ? "// " : "# ";
  std::string body;
  for (const auto& [name, value] : inputs.items()) {
    CR_RETURN_IF_ERROR(CheckName(language, name));
    p.variables.push_back({name, TypeOf(value)});
    if (value.is_array() || value.is_object()) {
      p.uses_params_file = true;
      if (language == "python") {
        body += name + " = _cr_params[" + PythonString(name) + "]\n";
      } else if (js) {
        body += "const " + name + " = _cr_params[" + JsString(name) + "];\n";
      } else {
        body += name + "=" + BashString(value.dump()) + "\n";
      }
      continue;
    }
    auto literal = ScalarLiteral(language, value);
    if (!literal.ok()) {
      return InvalidArgumentError("inputs: '" + name + "': " + literal.status().message(),
                                  literal.status().reason());
    }
    if (js) {
      body += "const " + name + " = " + *literal + ";\n";
    } else if (language == "python") {
      body += name + " = " + *literal + "\n";
    } else {
      body += name + "=" + *literal + "\n";
    }
  }
  std::string head = comment + "--- inputs (set by coderunner; do not redefine) ---\n";
  if (p.uses_params_file && language == "python") {
    head += "import json as _cr_json\nwith open('" + std::string(kParamsPath) +
            "', encoding='utf-8') as _cr_f:\n    _cr_params = _cr_json.load(_cr_f)\n";
  } else if (p.uses_params_file && js) {
    head += "const _cr_params = JSON.parse(require(\"fs\").readFileSync(\"" +
            std::string(kParamsPath) + "\", \"utf8\"));\n";
  }
  p.text = head + body + comment + "--- end of inputs ---\n";
  for (char c : p.text) p.lines += c == '\n';
  return p;
}

}  // namespace coderunner::intent
