#include "coderunner/intent/preamble.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace coderunner::intent {
namespace {

using nlohmann::json;

struct LiteralCase {
  const char* language;
  json value;
  std::string literal;
};

TEST(PreambleTest, ScalarsBecomeEscapedLiterals) {
  const LiteralCase cases[] = {
      {"python", 1, "1"},
      {"python", -5, "-5"},
      {"python", 1.5, "1.5"},
      {"python", true, "True"},
      {"python", nullptr, "None"},
      {"python", "it's", R"('it\'s')"},
      {"python", "a\\b\n", R"('a\\b\n')"},
      {"python", "'''", R"('\'\'\'')"},
      {"python", "\x01", R"('\x01')"},
      {"python", "\xc3\xa9", R"('\u00e9')"},
      {"python", "\xf0\x9f\x98\x80", R"('\U0001f600')"},
      {"javascript", false, "false"},
      {"javascript", nullptr, "null"},
      {"javascript", "say \"hi\"", R"("say \"hi\"")"},
      {"javascript", "${x}`", R"("${x}`")"},
      {"javascript", "\xe2\x80\xa8", R"("\u2028")"},
      {"javascript", "\xf0\x9f\x98\x80", R"("\ud83d\ude00")"},
      {"bash", "it's", R"('it'\''s')"},
      {"bash", "$(id) `id` ${HOME}", "'$(id) `id` ${HOME}'"},
      {"bash", 42, "'42'"},
      {"bash", true, "'true'"},
      {"bash", nullptr, "''"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.language) + " " + c.value.dump());
    auto lit = ScalarLiteral(c.language, c.value);
    ASSERT_TRUE(lit.ok()) << lit.status().ToString();
    EXPECT_EQ(*lit, c.literal);
  }
}

TEST(PreambleTest, PythonAndJavaScriptLiteralsArePureAscii) {
  for (const char* language : {"python", "javascript"}) {
    auto lit = ScalarLiteral(language, "\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\n\t\x7f");
    ASSERT_TRUE(lit.ok());
    for (unsigned char c : *lit) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << language << " " << *lit;
  }
}

struct NameCase {
  const char* language;
  const char* name;
  bool ok;
};

TEST(PreambleTest, NamesMustBeIdentifiersThatShadowNothingImportant) {
  const NameCase cases[] = {
      {"python", "a", true},
      {"python", "total_2", true},
      {"python", "2x", false},
      {"python", "a-b", false},
      {"python", "", false},
      {"python", "import", false},
      {"python", "print", false},
      {"python", "_cr_params", false},
      {"javascript", "items", true},
      {"javascript", "const", false},
      {"javascript", "console", false},
      {"javascript", "require", false},
      {"bash", "text", true},
      {"bash", "PATH", false},
      {"bash", "IFS", false},
      {"bash", "BASH_ENV", false},
      {"bash", "LC_ALL", false},
      {"bash", "LD_PRELOAD", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.language) + " '" + c.name + "'");
    auto p = BuildPreamble(c.language, json{{c.name, 1}});
    EXPECT_EQ(p.ok(), c.ok) << p.status().ToString();
    if (!c.ok) {
      EXPECT_EQ(p.status().reason(), "invalid_input_name");
    }
  }
  EXPECT_EQ(BuildPreamble("python", json{{std::string(65, 'a'), 1}}).status().reason(),
            "invalid_input_name");
}

TEST(PreambleTest, ShapeLinesVariablesAndParamsFile) {
  auto none = BuildPreamble("python", nullptr);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->text, "");
  EXPECT_EQ(none->lines, 0);
  EXPECT_EQ(BuildPreamble("python", json::array()).status().reason(), "invalid_inputs");
  EXPECT_EQ(BuildPreamble("cobol", json::object()).status().reason(), "unknown_language");
  EXPECT_EQ(BuildPreamble("bash", json{{"s", std::string("a\0b", 3)}}).status().reason(),
            "invalid_input_value");

  auto p = BuildPreamble("python", json{{"a", 1}, {"items", {1, 2}}, {"name", "x"}});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->uses_params_file);
  ASSERT_EQ(p->variables.size(), 3u);
  EXPECT_EQ(p->variables[0].name, "a");
  EXPECT_EQ(p->variables[0].type, "integer");
  EXPECT_EQ(p->variables[1].type, "array");
  EXPECT_EQ(p->variables[2].type, "string");
  EXPECT_NE(p->text.find("/workspace/params.json"), std::string::npos);
  EXPECT_NE(p->text.find("items = _cr_params['items']"), std::string::npos) << p->text;
  EXPECT_EQ(p->text.back(), '\n');
  int newlines = 0;
  for (char c : p->text) newlines += c == '\n';
  EXPECT_EQ(p->lines, newlines);
}

// Runs `program` with `interpreter` on the host; its stdout, or nullopt if
// the interpreter is missing.
std::optional<std::string> RunOnHost(const std::string& interpreter, const std::string& program,
                                     const std::string& ext) {
  std::string dir = std::filesystem::temp_directory_path() / "cr-preamble-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) return std::nullopt;
  std::string file = dir + "/main." + ext;
  std::ofstream(file) << program;
  std::string cmd = "cd " + dir + " && " + interpreter + " " + file + " 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while (f != nullptr && (n = fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
  int rc = f != nullptr ? pclose(f) : -1;
  std::filesystem::remove_all(dir);
  if (rc != 0) {
    ADD_FAILURE() << interpreter << " failed: " << out << "\n" << program;
    return std::nullopt;
  }
  return out;
}

bool OnPath(const std::string& tool) {
  return system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0;
}

// Values built to break out of a string literal; each must arrive byte for
// byte in a real interpreter.
const json kHostile = {
    {"s0", "it's \"quoted\""},
    {"s1", "back\\slash \\n"},
    {"s2", "'''\n\"\"\""},
    {"s3", "${HOME} $(id)"},
    {"s4", "`id` %s {0}"},
    {"s5", "line1\nline2\r\n\ttab"},
    {"s6", "\x01\x1f\x7f"},
    {"s7", "\xe2\x80\xa8\xe2\x80\xa9"},
    {"s8", "\xf0\x9f\x98\x80 \xc3\xa9"},
    {"s9", "</script>\\"},
    {"n0", 9007199254740993LL},
    {"n1", -1.5},
    {"n2", 1e300},
    {"b0", true},
    {"z0", nullptr},
};

TEST(PreambleTest, HostileValuesRoundTripThroughRealInterpreters) {
  std::string keys;
  for (const auto& [k, v] : kHostile.items()) keys += (keys.empty() ? "" : ", ") + k;
  if (OnPath("python3")) {
    auto p = BuildPreamble("python", kHostile);
    ASSERT_TRUE(p.ok());
    auto out = RunOnHost(
        "python3", p->text + "import json, sys\nsys.stdout.write(json.dumps([" + keys + "]))\n",
        "py");
    if (out) {
      json expected = json::array();
      for (const auto& [k, v] : kHostile.items()) expected.push_back(v);
      EXPECT_EQ(json::parse(*out, nullptr, false), expected) << *out;
    }
  }
  if (OnPath("node")) {
    json strings = json::object();
    for (const auto& [k, v] : kHostile.items()) {
      if (v.is_string() || v.is_boolean() || v.is_null()) strings[k] = v;
    }
    auto p = BuildPreamble("javascript", strings);
    ASSERT_TRUE(p.ok());
    std::string list;
    for (const auto& [k, v] : strings.items()) list += (list.empty() ? "" : ", ") + k;
    auto out = RunOnHost("node",
                         p->text + "process.stdout.write(JSON.stringify([" + list + "]));\n", "js");
    if (out) {
      json expected = json::array();
      for (const auto& [k, v] : strings.items()) expected.push_back(v);
      EXPECT_EQ(json::parse(*out, nullptr, false), expected) << *out;
    }
  }
  if (OnPath("bash")) {
    for (const auto& [k, v] : kHostile.items()) {
      if (!v.is_string()) continue;
      SCOPED_TRACE(k);
      auto p = BuildPreamble("bash", json{{k, v}});
      ASSERT_TRUE(p.ok());
      auto out = RunOnHost("bash", p->text + "printf '%s' \"$" + k + "\"\n", "sh");
      if (out) {
        EXPECT_EQ(*out, v.get<std::string>());
      }
    }
  }
}

}  // namespace
}  // namespace coderunner::intent
