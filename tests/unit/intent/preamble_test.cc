#include "intent/preamble.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace coderunner::intent {
namespace {

using nlohmann::json;

struct LiteralCase {
  json value;
  std::string literal;
};

void ExpectLiterals(const char* language, const std::vector<LiteralCase>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(language) + " " + c.value.dump());
    auto lit = ScalarLiteral(language, c.value);
    ASSERT_TRUE(lit.ok()) << lit.status().ToString();
    EXPECT_EQ(*lit, c.literal);
  }
}

TEST(PreambleTest, PythonStringsAreSingleQuotedAsciiLiterals) {
  ExpectLiterals("python", {
                               {"plain", "'plain'"},
                               {"", "''"},
                               {"it's", R"('it\'s')"},
                               {"a\"b", R"('a"b')"},
                               {"back\\slash", R"('back\\slash')"},
                               {"\\n", R"('\\n')"},
                               {"line1\nline2", R"('line1\nline2')"},
                               {"\r\n\t", R"('\r\n\t')"},
                               {std::string("\0", 1), R"('\x00')"},
                               {"\x01\x1f\x7f", R"('\x01\x1f\x7f')"},
                               {"'''", R"('\'\'\'')"},
                               {"\"\"\"", R"('"""')"},
                               {"${HOME} $(id) `id`", "'${HOME} $(id) `id`'"},
                               {"{x} %s", "'{x} %s'"},
                               {"\xc3\xa9", R"('\u00e9')"},
                               {"\xe2\x80\xa8", R"('\u2028')"},
                               {"\xef\xbf\xbf", R"('\uffff')"},
                               {"\xf0\x9f\x98\x80", R"('\U0001f600')"},
                               {"\xf4\x8f\xbf\xbf", R"('\U0010ffff')"},
                           });
}

TEST(PreambleTest, PythonNumbersBooleansAndNullAreExactLiterals) {
  ExpectLiterals("python", {
                               {0, "0"},
                               {-5, "-5"},
                               {9007199254740993LL, "9007199254740993"},
                               {18446744073709551615ULL, "18446744073709551615"},
                               {-9223372036854775807LL - 1, "-9223372036854775808"},
                               {1.5, "1.5"},
                               {1.0, "1.0"},
                               {-0.0, "-0.0"},
                               {1e300, "1e+300"},
                               {5e-324, "5e-324"},
                               {true, "True"},
                               {false, "False"},
                               {nullptr, "None"},
                           });
}

TEST(PreambleTest, JavaScriptStringsAreDoubleQuotedAsciiLiterals) {
  ExpectLiterals("javascript", {
                                   {"plain", "\"plain\""},
                                   {"it's", R"("it's")"},
                                   {"say \"hi\"", R"("say \"hi\"")"},
                                   {"back\\slash", R"("back\\slash")"},
                                   {"line1\nline2\r\t", R"("line1\nline2\r\t")"},
                                   {std::string("\0"
                                                "1",
                                                2),
                                    R"("\x001")"},
                                   {"\x01\x7f", R"("\x01\x7f")"},
                                   {"${x} `y`", R"("${x} `y`")"},
                                   {"</script>", R"("</script>")"},
                                   {"\xc3\xa9", R"("\u00e9")"},
                                   {"\xe2\x80\xa8\xe2\x80\xa9", R"("\u2028\u2029")"},
                                   {"\xf0\x9f\x98\x80", R"("\ud83d\ude00")"},
                                   {"\xf4\x8f\xbf\xbf", R"("\udbff\udfff")"},
                               });
}

TEST(PreambleTest, JavaScriptNumbersBooleansAndNullAreLiterals) {
  ExpectLiterals("javascript", {
                                   {0, "0"},
                                   {-5, "-5"},
                                   {1.5, "1.5"},
                                   {1e300, "1e+300"},
                                   {true, "true"},
                                   {false, "false"},
                                   {nullptr, "null"},
                               });
}

TEST(PreambleTest, BashValuesAreSingleQuotedWords) {
  ExpectLiterals("bash", {
                             {"plain", "'plain'"},
                             {"", "''"},
                             {"it's", R"('it'\''s')"},
                             {"''", R"(''\'''\''')"},
                             {"$(id) `id` ${HOME} \\", "'$(id) `id` ${HOME} \\'"},
                             {"line1\nline2", "'line1\nline2'"},
                             {"\xc3\xa9", "'\xc3\xa9'"},  // Raw bytes: quotes are literal.
                             {42, "'42'"},
                             {-1.5, "'-1.5'"},
                             {1e300, "'1e+300'"},
                             {true, "'true'"},
                             {false, "'false'"},
                             {nullptr, "''"},
                         });
}

TEST(PreambleTest, PythonAndJavaScriptLiteralsArePureAscii) {
  const std::string hostile =
      "\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\n\r\t\x7f" + std::string("\0", 1) + "'\"\\";
  for (const char* language : {"python", "javascript", "typescript"}) {
    auto lit = ScalarLiteral(language, hostile);
    ASSERT_TRUE(lit.ok());
    for (unsigned char c : *lit) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << language << " " << *lit;
  }
}

TEST(PreambleTest, TextIsExactForEachLanguage) {
  const json inputs = {{"a", 1}, {"items", {1, "x"}}, {"name", "O'Brien"}};
  const struct {
    const char* language;
    std::string text;
  } cases[] = {
      {"python",
       "# --- inputs (set by coderunner; do not redefine) ---\n"
       "import json as _cr_json\n"
       "with open('/workspace/params.json', encoding='utf-8') as _cr_f:\n"
       "    _cr_params = _cr_json.load(_cr_f)\n"
       "a = 1\n"
       "items = _cr_params['items']\n"
       "name = 'O\\'Brien'\n"
       "# --- end of inputs ---\n"},
      {"javascript",
       "// --- inputs (set by coderunner; do not redefine) ---\n"
       "const _cr_params = JSON.parse(require(\"fs\").readFileSync(\"/workspace/params.json\", "
       "\"utf8\"));\n"
       "const a = 1;\n"
       "const items = _cr_params[\"items\"];\n"
       "const name = \"O'Brien\";\n"
       "// --- end of inputs ---\n"},
      {"typescript",
       "// --- inputs (set by coderunner; do not redefine) ---\n"
       "import { readFileSync as _cr_readFileSync } from \"node:fs\";\n"
       "const _cr_params = JSON.parse(_cr_readFileSync(\"/workspace/params.json\", \"utf8\"));\n"
       "const a = 1;\n"
       "const items = _cr_params[\"items\"];\n"
       "const name = \"O'Brien\";\n"
       "// --- end of inputs ---\n"},
      {"bash",
       "# --- inputs (set by coderunner; do not redefine) ---\n"
       "a='1'\n"
       "items='[1,\"x\"]'\n"
       "name='O'\\''Brien'\n"
       "# --- end of inputs ---\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.language);
    auto p = BuildPreamble(c.language, inputs);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->text, c.text);
    EXPECT_TRUE(p->uses_params_file);
    int newlines = 0;
    for (char ch : p->text) newlines += ch == '\n';
    EXPECT_EQ(p->lines, newlines);
  }
}

TEST(PreambleTest, ScalarsOnlyNeedNoParamsFile) {
  auto p = BuildPreamble("python", json{{"n", 3}});
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->uses_params_file);
  EXPECT_EQ(p->text,
            "# --- inputs (set by coderunner; do not redefine) ---\n"
            "n = 3\n"
            "# --- end of inputs ---\n");
  EXPECT_EQ(p->lines, 3);
}

TEST(PreambleTest, NoInputsGiveAnEmptyPreamble) {
  for (const char* language : {"python", "javascript", "typescript", "bash"}) {
    for (const json& inputs : {json(nullptr), json::object()}) {
      auto p = BuildPreamble(language, inputs);
      ASSERT_TRUE(p.ok()) << language;
      EXPECT_EQ(p->text, "");
      EXPECT_EQ(p->lines, 0);
      EXPECT_TRUE(p->variables.empty());
      EXPECT_FALSE(p->uses_params_file);
    }
  }
}

TEST(PreambleTest, VariablesFollowKeyOrderWithTheirTypes) {
  const json inputs = {
      {"s", "x"},  {"i", -3},      {"u", 18446744073709551615ULL}, {"f", 2.5},
      {"b", true}, {"z", nullptr}, {"arr", json::array()},         {"obj", json::object()}};
  auto p = BuildPreamble("javascript", inputs);
  ASSERT_TRUE(p.ok());
  std::vector<std::pair<std::string, std::string>> got;
  for (const auto& v : p->variables) got.emplace_back(v.name, v.type);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"arr", "array"},  {"b", "boolean"}, {"f", "number"},  {"i", "integer"},
      {"obj", "object"}, {"s", "string"},  {"u", "integer"}, {"z", "null"}};
  EXPECT_EQ(got, want);
}

TEST(PreambleTest, MalformedInputsLanguagesAndValuesAreRejected) {
  const struct {
    const char* name;
    const char* language;
    json inputs;
    const char* reason;
  } cases[] = {
      {"array inputs", "python", json::array({1}), "invalid_inputs"},
      {"string inputs", "python", "x", "invalid_inputs"},
      {"number inputs", "bash", 1, "invalid_inputs"},
      {"unknown language", "cobol", json{{"a", 1}}, "unknown_language"},
      {"empty language", "", json::object(), "unknown_language"},
      {"bash NUL", "bash", json{{"s", std::string("a\0b", 3)}}, "invalid_input_value"},
      {"invalid UTF-8", "python", json{{"s", "\xff"}}, "invalid_input_value"},
      {"surrogate in UTF-8", "javascript", json{{"s", "\xed\xa0\x80"}}, "invalid_input_value"},
      {"bash nested invalid UTF-8", "bash", json{{"a", json::array({"\xc3"})}},
       "invalid_input_value"},
      {"NaN", "python", json{{"x", std::nan("")}}, "invalid_input_value"},
      {"infinity", "javascript", json{{"x", HUGE_VAL}}, "invalid_input_value"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = BuildPreamble(c.language, c.inputs);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(p.status().reason(), c.reason);
  }
  // A NUL is fine where a literal can spell it.
  EXPECT_TRUE(BuildPreamble("python", json{{"s", std::string("a\0b", 3)}}).ok());
  EXPECT_TRUE(BuildPreamble("javascript", json{{"s", std::string("a\0b", 3)}}).ok());
  // Naming the key that failed.
  auto nul = BuildPreamble("bash", json{{"payload", std::string("\0", 1)}});
  EXPECT_NE(nul.status().message().find("payload"), std::string::npos) << nul.status().message();
}

struct NameCase {
  const char* language;
  std::string name;
  bool ok;
};

TEST(PreambleTest, InputNamesMustBeIdentifiersThatShadowNothingImportant) {
  const NameCase cases[] = {
      // Shape, in every language.
      {"python", "a", true},
      {"python", "_", true},
      {"python", "total_2", true},
      {"python", "_private", true},
      {"python", std::string(64, 'a'), true},
      {"python", std::string(65, 'a'), false},
      {"python", "", false},
      {"python", "2x", false},
      {"python", "a-b", false},
      {"python", "a b", false},
      {"python", "a.b", false},
      {"python", "a\nb", false},
      {"python", "caf\xc3\xa9", false},
      {"javascript", "$x", false},
      {"bash", "a=b", false},
      // Our own helper prefix.
      {"python", "_cr_params", false},
      {"javascript", "_cr_x", false},
      {"bash", "_cr_", false},
      {"python", "cr_params", true},
      // Python keywords, soft keywords, builtins and dunders.
      {"python", "import", false},
      {"python", "lambda", false},
      {"python", "None", false},
      {"python", "True", false},
      {"python", "match", false},
      {"python", "type", false},
      {"python", "print", false},
      {"python", "len", false},
      {"python", "range", false},
      {"python", "open", false},
      {"python", "input", false},
      {"python", "str", false},
      {"python", "dict", false},
      {"python", "json", false},
      {"python", "sys", false},
      {"python", "os", false},
      {"python", "math", false},
      {"python", "__name__", false},
      {"python", "__builtins__", false},
      {"python", "__x", true},
      {"python", "console", true},
      {"python", "PATH", true},
      // JavaScript reserved words and globals.
      {"javascript", "items", true},
      {"javascript", "const", false},
      {"typescript", "items", true},
      {"typescript", "type", true},
      {"typescript", "let", false},
      {"typescript", "console", false},
      {"javascript", "let", false},
      {"javascript", "await", false},
      {"javascript", "enum", false},
      {"javascript", "console", false},
      {"javascript", "require", false},
      {"javascript", "process", false},
      {"javascript", "module", false},
      {"javascript", "exports", false},
      {"javascript", "JSON", false},
      {"javascript", "Math", false},
      {"javascript", "undefined", false},
      {"javascript", "NaN", false},
      {"javascript", "Infinity", false},
      {"javascript", "globalThis", false},
      {"javascript", "eval", false},
      {"javascript", "arguments", false},
      {"javascript", "print", true},
      {"javascript", "json", true},
      // Bash special and environment variables.
      {"bash", "text", true},
      {"bash", "path", true},
      {"bash", "BASHFUL", true},
      {"bash", "PATH", false},
      {"bash", "IFS", false},
      {"bash", "HOME", false},
      {"bash", "ENV", false},
      {"bash", "BASH_ENV", false},
      {"bash", "BASH_VERSION", false},
      {"bash", "CDPATH", false},
      {"bash", "GLOBIGNORE", false},
      {"bash", "SHELLOPTS", false},
      {"bash", "PS4", false},
      {"bash", "UID", false},
      {"bash", "RANDOM", false},
      {"bash", "LANG", false},
      {"bash", "LC_ALL", false},
      {"bash", "LC_CTYPE", false},
      {"bash", "LD_PRELOAD", false},
      {"bash", "PROMPT_COMMAND", false},
      {"bash", "OPTIND", false},
      {"bash", "REPLY", false},
      {"bash", "FUNCNAME", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.language) + " '" + c.name + "'");
    auto p = BuildPreamble(c.language, json{{c.name, 1}});
    EXPECT_EQ(p.ok(), c.ok) << p.status().ToString();
    if (c.ok || p.ok()) continue;
    EXPECT_EQ(p.status().reason(), "invalid_input_name");
    if (!c.name.empty() && c.name.size() <= 64 && c.name.find('\n') == std::string::npos &&
        c.name.find('\xc3') == std::string::npos) {
      EXPECT_NE(p.status().message().find(c.name), std::string::npos) << p.status().message();
    }
  }
}

TEST(PreambleTest, RejectedKeysAreQuotedAsAsciiInTheMessage) {
  auto p = BuildPreamble("python", json{{"bad\n\"key\xc3\xa9\x01", 1}});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find(R"("bad\n\"key\u00e9\u0001")"), std::string::npos)
      << p.status().message();
  for (unsigned char c : p.status().message()) EXPECT_TRUE(c >= 0x20 && c < 0x7f);
  // Even a key that is not UTF-8 does not make building the message throw.
  auto bad = BuildPreamble("bash", json{{"\xff", 1}});
  EXPECT_EQ(bad.status().reason(), "invalid_input_name");
}

// --- Round trips through the real interpreters on this host. ---

bool OnPath(const std::string& tool) {
  const char* path = getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// A temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "cr-preamble-XXXXXX").string();
    if (mkdtemp(templ.data()) != nullptr) path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `interpreter file` (no shell) in a temp dir holding `program` and
// `files`; returns its stdout, or nullopt (with a test failure) if it did
// not exit 0.
std::optional<std::string> RunOnHost(
    const std::string& interpreter, const std::string& program, const std::string& file_name,
    const std::vector<std::pair<std::string, std::string>>& files = {}) {
  TempDir dir;
  if (dir.path().empty()) {
    ADD_FAILURE() << "mkdtemp failed";
    return std::nullopt;
  }
  const std::string file = dir.path() + "/" + file_name;
  const std::string err = dir.path() + "/stderr.txt";
  std::ofstream(file, std::ios::binary) << program;
  for (const auto& [name, content] : files) {
    std::ofstream(dir.path() + "/" + name, std::ios::binary) << content;
  }
  int out[2];
  if (pipe(out) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, out[1]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> argv = {const_cast<char*>(interpreter.c_str()),
                             const_cast<char*>(file.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, interpreter.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string stdout_data;
  char buf[4096];
  ssize_t n;
  while (rc == 0 && (n = read(out[0], buf, sizeof(buf))) > 0) stdout_data.append(buf, n);
  close(out[0]);
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(err);
    std::string stderr_data((std::istreambuf_iterator<char>(in)), {});
    ADD_FAILURE() << interpreter << " failed: " << stderr_data << "\n--- program:\n" << program;
    return std::nullopt;
  }
  return stdout_data;
}

// Strings built to break out of a literal; each must arrive byte for byte.
const std::vector<std::string>& HostileStrings() {
  static const std::vector<std::string> kAll = {
      "plain",
      "",
      "it's",
      "a\"b",
      "'''",
      "\"\"\"",
      "'",
      "\"",
      "\\",
      "\\\\n",
      "back\\slash \\n \\' \\\"",
      "${HOME}",
      "$(id)",
      "`id`",
      "$HOME $1 $@ $$ $0 !! %s %d {0} {x}",
      "line1\nline2",
      "\r\n",
      "\r",
      "\t",
      "\x01\x7f",
      "\x1b[31mred\x1b[0m \x08\x0b\x0c",
      "\xc3\xa9",
      "\xf0\x9f\x98\x80",
      "\xe2\x80\xa8",
      "\xe2\x80\xa9",
      "\xef\xbb\xbf bom",
      "</script><script>alert(1)</script>",
      "'; import os; os.system('id'); '",
      "\"; require('child_process'); \"",
      "'\"'\"'",
      "# not a comment\n// nor this",
      "\\x41 \\u0041 \\U00000041 \\N{DASH}",
      "end with backslash\\",
  };
  return kAll;
}

std::string VarName(size_t i) { return "s" + std::to_string(100 + i); }

json HostileInputs(bool with_nul) {
  json inputs = json::object();
  const auto& strings = HostileStrings();
  for (size_t i = 0; i < strings.size(); ++i) inputs[VarName(i)] = strings[i];
  if (with_nul) inputs["nul"] = std::string("a\0b", 3);
  return inputs;
}

// The variables in key order, comma-separated.
std::string NameList(const json& inputs) {
  std::string list;
  for (const auto& [k, v] : inputs.items()) list += (list.empty() ? "" : ", ") + k;
  return list;
}

// Each element of `got` (a JSON array as text) must be `want`'s, byte for
// byte and with the same number type.
void ExpectSameValues(const std::optional<std::string>& got, const json& inputs) {
  if (!got) return;
  json parsed = json::parse(*got, nullptr, false);
  ASSERT_TRUE(parsed.is_array()) << *got;
  ASSERT_EQ(parsed.size(), inputs.size()) << *got;
  size_t i = 0;
  for (const auto& [k, v] : inputs.items()) {
    EXPECT_EQ(parsed[i].dump(), v.dump()) << k;
    ++i;
  }
}

TEST(PreambleTest, HostileStringsRoundTripThroughPython) {
  if (!OnPath("python3")) GTEST_SKIP() << "python3 not on PATH";
  const json inputs = HostileInputs(/*with_nul=*/true);
  auto p = BuildPreamble("python", inputs);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ExpectSameValues(RunOnHost("python3",
                             p->text + "import json,sys; sys.stdout.write(json.dumps([" +
                                 NameList(inputs) + "]))\n",
                             "main.py"),
                   inputs);
}

TEST(PreambleTest, HostileStringsRoundTripThroughNode) {
  if (!OnPath("node")) GTEST_SKIP() << "node not on PATH";
  const json inputs = HostileInputs(/*with_nul=*/true);
  auto p = BuildPreamble("javascript", inputs);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ExpectSameValues(
      RunOnHost("node",
                p->text + "process.stdout.write(JSON.stringify([" + NameList(inputs) + "]));\n",
                "main.js"),
      inputs);
}

TEST(PreambleTest, HostileStringsRoundTripThroughBash) {
  if (!OnPath("bash")) GTEST_SKIP() << "bash not on PATH";
  const auto& strings = HostileStrings();
  // One run; values separated by a byte none of them holds, so each can be
  // compared raw.
  const json inputs = HostileInputs(/*with_nul=*/false);
  auto p = BuildPreamble("bash", inputs);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  std::string program = p->text;
  for (size_t i = 0; i < strings.size(); ++i) {
    program += "printf '%s\\036' \"$" + VarName(i) + "\"\n";
  }
  auto out = RunOnHost("bash", program, "main.sh");
  if (!out) return;
  std::vector<std::string> got;
  std::string cur;
  for (char c : *out) {
    if (c == '\x1e') {
      got.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  ASSERT_EQ(got.size(), strings.size()) << *out;
  for (size_t i = 0; i < strings.size(); ++i) EXPECT_EQ(got[i], strings[i]) << VarName(i);
}

TEST(PreambleTest, NumbersBooleansAndNullRoundTripThroughPython) {
  if (!OnPath("python3")) GTEST_SKIP() << "python3 not on PATH";
  const json inputs = {{"a0", 0},
                       {"a1", -5},
                       {"a2", 9007199254740993LL},
                       {"a3", 18446744073709551615ULL},
                       {"a4", -9223372036854775807LL - 1},
                       {"a5", 1.5},
                       {"a6", 1.0},
                       {"a7", 1e300},
                       {"a8", 5e-324},
                       {"a9", -2.5e-10},
                       {"b0", true},
                       {"b1", false},
                       {"b2", nullptr}};
  auto p = BuildPreamble("python", inputs);
  ASSERT_TRUE(p.ok());
  ExpectSameValues(RunOnHost("python3",
                             p->text + "import json,sys; sys.stdout.write(json.dumps([" +
                                 NameList(inputs) + "]))\n",
                             "main.py"),
                   inputs);
}

TEST(PreambleTest, NumbersBooleansAndNullRoundTripThroughNode) {
  if (!OnPath("node")) GTEST_SKIP() << "node not on PATH";
  // JavaScript numbers are doubles: no 2^53+1, and 1.0 prints as 1.
  const json inputs = {{"a0", 0},     {"a1", -5},     {"a2", 9007199254740992LL}, {"a3", 1.5},
                       {"a4", 1e300}, {"a5", 5e-324}, {"a6", -2.5e-10},           {"b0", true},
                       {"b1", false}, {"b2", nullptr}};
  auto p = BuildPreamble("javascript", inputs);
  ASSERT_TRUE(p.ok());
  ExpectSameValues(
      RunOnHost("node",
                p->text + "process.stdout.write(JSON.stringify([" + NameList(inputs) + "]));\n",
                "main.js"),
      inputs);
}

TEST(PreambleTest, NumbersBooleansAndNullRoundTripThroughBashAsText) {
  if (!OnPath("bash")) GTEST_SKIP() << "bash not on PATH";
  const json inputs = {{"a0", 0},     {"a1", -5},     {"a2", 9007199254740993LL},
                       {"a3", 1.5},   {"a4", 1e300},  {"b0", true},
                       {"b1", false}, {"b2", nullptr}};
  auto p = BuildPreamble("bash", inputs);
  ASSERT_TRUE(p.ok());
  std::string program = p->text;
  for (const auto& [k, v] : inputs.items()) program += "printf '%s,' \"$" + k + "\"\n";
  auto out = RunOnHost("bash", program, "main.sh");
  if (out) {
    EXPECT_EQ(*out, "0,-5,9007199254740993,1.5,1e+300,true,false,,");
  }
}

// Arrays and objects with hostile strings inside, as the pipeline passes
// them: params.json (here beside the program; the test swaps the
// preamble's path literal for an expression naming it).
const json& NestedInputs() {
  static const json kNested = {
      {"items", {1, "a'b\"c", "\xe2\x80\xa8\xf0\x9f\x98\x80", nullptr, {{"k", "$(id)\n"}}}},
      {"config", {{"deep", {{"list", json::array()}, {"x", 1.5}}}, {"q", "'''"}}},
      {"n", 2}};
  return kNested;
}

TEST(PreambleTest, ArraysAndObjectsRoundTripThroughTheParamsFile) {
  if (!OnPath("python3") && !OnPath("node") && !OnPath("bash")) {
    GTEST_SKIP() << "no interpreter on PATH";
  }
  const json& inputs = NestedInputs();
  const std::vector<std::pair<std::string, std::string>> params = {{"params.json", inputs.dump()}};
  if (OnPath("python3")) {
    auto p = BuildPreamble("python", inputs);
    ASSERT_TRUE(p.ok());
    ASSERT_TRUE(p->uses_params_file);
    // The program finds params.json through its own directory.
    std::string text = p->text;
    text = "import os as _t_os\n" + text;
    std::string from = *ScalarLiteral("python", kParamsPath);
    text.replace(text.find(from), from.size(),
                 "_t_os.path.join(_t_os.path.dirname(_t_os.path.abspath(__file__)), "
                 "'params.json')");
    ExpectSameValues(RunOnHost("python3",
                               text + "import json,sys; sys.stdout.write(json.dumps([" +
                                   NameList(inputs) + "]))\n",
                               "main.py", params),
                     inputs);
  }
  if (OnPath("node")) {
    auto p = BuildPreamble("javascript", inputs);
    ASSERT_TRUE(p.ok());
    std::string text = p->text;
    std::string from = *ScalarLiteral("javascript", kParamsPath);
    text.replace(text.find(from), from.size(), "__dirname + \"/params.json\"");
    ExpectSameValues(
        RunOnHost("node",
                  text + "process.stdout.write(JSON.stringify([" + NameList(inputs) + "]));\n",
                  "main.js", params),
        inputs);
  }
  if (OnPath("bash")) {
    auto p = BuildPreamble("bash", inputs);
    ASSERT_TRUE(p.ok());
    auto out =
        RunOnHost("bash", p->text + "printf '%s\\n' \"$items\" \"$config\" \"$n\"\n", "main.sh");
    if (out) {
      EXPECT_EQ(*out, inputs["items"].dump() + "\n" + inputs["config"].dump() + "\n2\n");
    }
  }
}

struct JoinCase {
  const char* name;
  const char* language;
  std::string preamble;  // Text; its lines are counted.
  std::string code;
  std::string text;
  int line_offset;
};

TEST(PreambleTest, JoinProgramKeepsWhatMustComeFirstAndTheModelsLineNumbers) {
  const std::vector<JoinCase> cases = {
      {"plain", "python", "a = 1\n", "print(a)\n", "a = 1\nprint(a)\n", 1},
      {"no trailing newline", "python", "a = 1\n", "print(a)", "a = 1\nprint(a)", 1},
      {"empty preamble", "javascript", "", "console.log(1)\n", "console.log(1)\n", 0},
      {"shebang blanked in javascript", "javascript", "const a = 1;\n",
       "#!/usr/bin/env node\nconsole.log(a)\n", "const a = 1;\n\nconsole.log(a)\n", 1},
      {"shebang blanked in bash", "bash", "a='1'\n", "#!/bin/bash\necho \"$a\"\n",
       "a='1'\n\necho \"$a\"\n", 1},
      {"shebang only on line one", "bash", "", "echo 1\n#!/bin/bash\n", "echo 1\n#!/bin/bash\n", 0},
      {"future import hoisted", "python", "a = 1\n",
       "# comment\nfrom __future__ import annotations\nprint(a)\n",
       "from __future__ import annotations\na = 1\n# comment\n\nprint(a)\n", 2},
      {"future import after code stays", "python", "a = 1\n",
       "import os\nfrom __future__ import annotations\n",
       "a = 1\nimport os\nfrom __future__ import annotations\n", 1},
      {"future import in javascript is text", "javascript", "",
       "from __future__ import annotations\n", "from __future__ import annotations\n", 0},
      {"parenthesised future import stays", "python", "a = 1\n",
       "from __future__ import (annotations)\n", "a = 1\nfrom __future__ import (annotations)\n",
       1},
      {"shebang then future import", "python", "a = 1\n",
       "#!/usr/bin/env python3\nfrom __future__ import annotations\nx = 2\n",
       "from __future__ import annotations\na = 1\n\n\nx = 2\n", 2},
  };
  for (const JoinCase& c : cases) {
    Preamble preamble;
    preamble.text = c.preamble;
    preamble.lines = static_cast<int>(std::count(c.preamble.begin(), c.preamble.end(), '\n'));
    JoinedProgram got = JoinProgram(c.language, preamble, c.code);
    EXPECT_EQ(got.text, c.text) << c.name;
    EXPECT_EQ(got.line_offset, c.line_offset) << c.name;
  }
}

}  // namespace
}  // namespace coderunner::intent
