#include "coderunner/intent/agent_catalog.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "intent/builtin_agents.h"

namespace coderunner::intent {
namespace {

namespace fs = std::filesystem;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

AgentProfile WithKeywords(std::vector<std::string> keywords, bool builtin = true) {
  AgentProfile p;
  p.keywords = std::move(keywords);
  p.builtin = builtin;
  return p;
}

TEST(MatchScoreTest, ScoresTheShareOfContentWordsAmongTheKeywords) {
  const struct {
    const char* name;
    const char* intent;
    std::vector<std::string> keywords;
    bool builtin;
    double want;
  } cases[] = {
      {"all content words match", "reverse a string", {"reverse", "string"}, true, 1.0},
      {"half match", "reverse a geohash", {"reverse", "string"}, true, 0.5},
      {"none match", "decode a geohash", {"reverse"}, true, 0.0},
      {"case is ignored", "REVERSE a String", {"Reverse", "STRING"}, true, 1.0},
      {"plural folded on the intent side", "sum the numbers", {"sum", "number"}, true, 1.0},
      {"plural folded on the keyword side", "sum a number", {"sum", "numbers"}, true, 1.0},
      {"double s is not a plural", "count the class", {"count", "clas"}, true, 0.5},
      {"repeated words count once", "word word word count", {"word"}, true, 0.5},
      {"numbers are stop words", "add 2 and 40", {"add"}, true, 1.0},
      {"single letters are stop words", "add a and b", {"add"}, true, 1.0},
      {"language names are dropped", "a python script in bash or node", {}, true, 1.0},
      {"punctuation splits words", "one-liner: split,join!", {"split", "join"}, true, 1.0},
      {"multi-word keywords are split", "unit conversion", {"unit conversion"}, true, 1.0},
      {"non-ASCII is a separator", "trim caf\xc3\xa9 text", {"trim", "caf", "text"}, true, 1.0},
      {"no content words: a shared profile fits", "compute 2 + 3", {"x"}, true, 1.0},
      {"no content words: a created one does not", "compute 2 + 3", {"x"}, false, 0.0},
      {"empty intent", "", {"x"}, true, 1.0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_DOUBLE_EQ(MatchScore(c.intent, WithKeywords(c.keywords, c.builtin)), c.want);
  }
}

class AgentCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / "cr-agents-XXXXXX";
    ASSERT_NE(mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<AgentCatalog> Open(const std::string& extra = "") {
    auto c = AgentCatalog::Open(extra, dir_ + "/store");
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(*c) : nullptr;
  }

  static AgentProfile Created(const std::string& name, const std::string& tenant,
                              std::vector<std::string> keywords) {
    AgentProfile p;
    p.name = name;
    p.language = "python";
    p.description = "d";
    p.keywords = std::move(keywords);
    p.system_prompt = "Write Python.";
    p.tenant = tenant;
    p.created_at_ms = 1000;
    return p;
  }

  std::string dir_;
};

TEST_F(AgentCatalogTest, BuiltInsForEachLanguageAreCompiledInAndValid) {
  EXPECT_EQ(BuiltinAgentYaml().size(), 4u);
  auto c = Open();
  ASSERT_NE(c, nullptr);
  for (const char* language : {"python", "javascript", "typescript", "bash"}) {
    auto m = c->BestMatch("anything at all", language, "t");
    ASSERT_TRUE(m.has_value()) << language;
    EXPECT_EQ(m->profile.name, std::string(language) + "-default");
    EXPECT_TRUE(m->profile.builtin);
    EXPECT_NE(m->profile.system_prompt.find("fenced code block"), std::string::npos);
  }
}

TEST_F(AgentCatalogTest, MatchScoresGenericTasksHighAndForeignDomainsLow) {
  auto c = Open();
  ASSERT_NE(c, nullptr);
  const struct {
    const char* intent;
    const char* language;
    bool fits;  // Score >= 0.5 against the built-in.
  } cases[] = {
      {"add 2 numbers together", "python", true},
      {"write a JavaScript function that reverses a string", "javascript", true},
      {"a bash one-liner that counts lines", "bash", true},
      {"sort the list and remove duplicates", "python", true},
      {"sort the list and remove duplicates", "javascript", true},
      {"sort the list and remove duplicates", "bash", true},
      {"convert celsius to fahrenheit", "javascript", true},
      {"sum the primes below 100 in TypeScript", "typescript", true},
      {"decode a base32 geohash into latitude and longitude", "typescript", false},
      {"parse the csv and sum the second column", "python", true},
      {"count the words in each line of a file", "bash", true},
      {"add a and b", "python", true},
      {"multiply the numbers", "python", true},
      {"sum the numbers and report the configured width", "python", true},
      {"write a JavaScript function that reverses the string s", "javascript", true},
      {"a bash one-liner that counts the words in text", "bash", true},
      {"add 2 and 3", "python", true},
      {"compute the orbital period of a satellite from its altitude", "python", false},
      {"decode a base32 geohash into latitude and longitude", "python", false},
      {"decode a base32 geohash into latitude and longitude", "javascript", false},
      {"compute the orbital period of a satellite from its altitude", "bash", false},
  };
  for (const auto& k : cases) {
    auto m = c->BestMatch(k.intent, k.language, "t");
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(m->score >= 0.5, k.fits) << k.intent << " scored " << m->score;
  }
}

TEST_F(AgentCatalogTest, CreatedProfilesAreTheOwnersOnlyAndSurviveReopening) {
  auto c = Open();
  ASSERT_NE(c, nullptr);
  auto name = c->Add(Created("geo", "acme", {"geohash", "latitude", "longitude", "decode"}));
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  EXPECT_EQ(*name, "geo");
  const char* intent = "decode a geohash into latitude and longitude";
  EXPECT_EQ(c->BestMatch(intent, "python", "acme")->profile.name, "geo");
  EXPECT_EQ(c->BestMatch(intent, "python", "other")->profile.name, "python-default");
  EXPECT_TRUE(c->Find("geo", "acme").has_value());
  EXPECT_FALSE(c->Find("geo", "other").has_value());
  // A generic intent stays with the built-in default.
  EXPECT_EQ(c->BestMatch("compute 2 + 3", "python", "acme")->profile.name, "python-default");
  // Same name again: suffixed, never overwritten.
  auto again = c->Add(Created("geo", "acme", {"x"}));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, "geo-2");
  // A built-in name is taken for everyone.
  EXPECT_EQ(*c->Add(Created("python-default", "acme", {"x"})), "python-default-2");

  auto reopened = Open();
  ASSERT_NE(reopened, nullptr);
  auto list = reopened->List("acme");
  ASSERT_EQ(list.size(), 7u);
  EXPECT_TRUE(list[0].builtin) << "shared profiles first";
  EXPECT_EQ(list[4].name, "geo");
  EXPECT_EQ(list[4].tenant, "acme");
  EXPECT_EQ(reopened->List("other").size(), 4u);
}

TEST_F(AgentCatalogTest, AddWritesOneJsonFileAndStampsTheCreationTime) {
  auto c = Open();
  ASSERT_NE(c, nullptr);
  AgentProfile p = Created("units", "team.a-1_B", {"Meter", "FOOT"});
  p.created_at_ms = 0;
  ASSERT_TRUE(c->Add(p).ok());
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir_ + "/store/team.a-1_B")) {
    files.push_back(e.path().filename().string());
  }
  EXPECT_EQ(files, std::vector<std::string>{"units.json"}) << "no temporary file left behind";
  auto stored = c->Find("units", "team.a-1_B");
  ASSERT_TRUE(stored.has_value());
  EXPECT_GT(stored->created_at_ms, 0);
  EXPECT_FALSE(stored->builtin);
  EXPECT_EQ(stored->keywords, (std::vector<std::string>{"meter", "foot"}));

  AgentProfile bad_utf8 = Created("bytes", "team.a-1_B", {"k"});
  bad_utf8.system_prompt = "Write \xff Python.";
  EXPECT_TRUE(c->Add(bad_utf8).ok()) << "invalid UTF-8 is replaced, not thrown";
  auto reopened = Open();
  ASSERT_NE(reopened, nullptr);
  EXPECT_TRUE(reopened->Find("bytes", "team.a-1_B").has_value());
}

TEST_F(AgentCatalogTest, AddRefusesUnsafeOwnersAndCorruptFilesAreSkipped) {
  auto c = Open();
  ASSERT_NE(c, nullptr);
  for (const char* bad : {"../evil", "", "a/b", ".", "..", "t\xc3\xa9", "a b"}) {
    auto r = c->Add(Created("x", bad, {"a"}));
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(r.status().reason(), "bad_agent_profile") << bad;
  }
  fs::create_directories(dir_ + "/store/acme");
  std::ofstream(dir_ + "/store/acme/broken.json") << "{not json";
  std::ofstream(dir_ + "/store/acme/stolen.json")
      << R"({"name":"stolen","language":"python","system_prompt":"x","tenant":"other"})";
  std::ofstream(dir_ + "/store/acme/renamed.json")
      << R"({"name":"other-name","language":"python","system_prompt":"x","tenant":"acme"})";
  auto reopened = Open();
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(reopened->List("acme").size(), 4u);
  EXPECT_EQ(reopened->List("other").size(), 4u);
}

TEST_F(AgentCatalogTest, ExtraDirectoryAddsSharedProfilesAndRejectsBadOnes) {
  fs::create_directories(dir_ + "/extra");
  std::ofstream(dir_ + "/extra/sql.yaml")
      << "name: python-sql\nlanguage: python\ndescription: sqlite\nkeywords: [sql, query]\n"
         "system_prompt: Use sqlite3.\n";
  auto c = Open(dir_ + "/extra");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->BestMatch("run a sql query", "python", "t")->profile.name, "python-sql");
  EXPECT_EQ(c->Find("python-sql", "anyone")->keywords, (std::vector<std::string>{"sql", "query"}));

  const struct {
    const char* name;
    const char* yaml;
  } bad[] = {
      {"bad name", "name: Bad Name\nlanguage: python\nsystem_prompt: p\n"},
      {"no language", "name: x\nsystem_prompt: p\n"},
      {"no prompt", "name: x\nlanguage: python\n"},
      {"not a mapping", "- a\n- b\n"},
      {"keywords not a list", "name: x\nlanguage: python\nsystem_prompt: p\nkeywords: a, b\n"},
      {"not YAML", "name: [unclosed\n"},
      {"duplicate of a built-in", "name: python-default\nlanguage: python\nsystem_prompt: p\n"},
  };
  for (const auto& b : bad) {
    SCOPED_TRACE(b.name);
    std::ofstream(dir_ + "/extra/zz-bad.yaml") << b.yaml;
    auto r = AgentCatalog::Open(dir_ + "/extra", dir_ + "/store");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("zz-bad.yaml"), std::string::npos) << "names the file";
  }
  EXPECT_FALSE(AgentCatalog::Open(dir_ + "/missing", dir_ + "/store").ok());
}

TEST(ParseGeneratedProfileTest, AcceptsTheObjectBareFencedOrInProse) {
  const struct {
    const char* name;
    const char* reply;
    const char* want_name;  // nullptr = rejected.
  } cases[] = {
      {"bare", R"({"name":"csv-tool","description":"d","keywords":["csv"],"system_prompt":"p"})",
       "csv-tool"},
      {"fenced",
       "```json\n{\"name\":\"Csv Tool!\",\"description\":\"d\",\"keywords\":[\"CSV\"],"
       "\"system_prompt\":\"p\",\"conventions\":[\"c\"]}\n```",
       "csv-tool"},
      {"in prose",
       "Sure. {\"name\":\"x\",\"description\":\"d\",\"keywords\":[\"k\"],\"system_prompt\":\"p\"} "
       "Hope it helps.",
       "x"},
      {"path in the name",
       R"({"name":"../../etc/passwd","description":"d","keywords":["k"],"system_prompt":"p"})",
       "etc-passwd"},
      {"conventions null", R"({"name":"x","description":"d","keywords":["k"],"system_prompt":"p",
          "conventions":null})",
       "x"},
      {"language in the reply ignored",
       R"({"name":"x","language":"cobol","description":"d","keywords":["k"],"system_prompt":"p"})",
       "x"},
      {"no object", "I cannot do that.", nullptr},
      {"not JSON", "{name: x}", nullptr},
      {"an array", R"([{"name":"x"}])", nullptr},
      {"name not a string", R"({"name":7,"description":"d","keywords":["k"],"system_prompt":"p"})",
       nullptr},
      {"name with no usable character",
       R"({"name":"!!!","description":"d","keywords":["k"],"system_prompt":"p"})", "agent"},
      {"keyword not a string",
       R"({"name":"x","description":"d","keywords":["k",1],"system_prompt":"p"})", nullptr},
      {"keywords empty", R"({"name":"x","description":"d","keywords":[],"system_prompt":"p"})",
       nullptr},
      {"keywords all blank",
       R"({"name":"x","description":"d","keywords":[""],"system_prompt":"p"})", nullptr},
      {"conventions not a list",
       R"({"name":"x","description":"d","keywords":["k"],"system_prompt":"p","conventions":"c"})",
       nullptr},
      {"convention not a string",
       R"({"name":"x","description":"d","keywords":["k"],"system_prompt":"p","conventions":[1]})",
       nullptr},
      {"missing prompt", R"({"name":"x","description":"d","keywords":["k"]})", nullptr},
      {"keywords not a list",
       R"({"name":"x","description":"d","keywords":"k","system_prompt":"p"})", nullptr},
      {"empty description", R"({"name":"x","description":"","keywords":["k"],"system_prompt":"p"})",
       nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto p = ParseGeneratedProfile(c.reply, "python");
    if (c.want_name == nullptr) {
      ASSERT_FALSE(p.ok());
      EXPECT_EQ(p.status().reason(), "bad_agent_profile");
      continue;
    }
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->name, c.want_name);
    EXPECT_EQ(p->language, "python");
    for (const auto& k : p->keywords) EXPECT_EQ(k, Lower(k));
  }
  std::string many = R"({"name":")" + std::string(100, 'N') +
                     R"(","description":"d","system_prompt":"p","keywords":[)";
  for (int i = 0; i < 40; ++i) many += (i ? ",\"K" : "\"K") + std::to_string(i) + "\"";
  auto capped = ParseGeneratedProfile(many + "]}", "javascript");
  ASSERT_TRUE(capped.ok()) << capped.status().ToString();
  EXPECT_EQ(capped->name, std::string(64, 'n'));
  EXPECT_EQ(capped->keywords.size(), 32u);
  EXPECT_EQ(capped->keywords[0], "k0");
  EXPECT_EQ(capped->language, "javascript");
  EXPECT_FALSE(capped->builtin);

  auto huge =
      ParseGeneratedProfile(R"({"name":"x","description":"d","keywords":["k"],"system_prompt":")" +
                                std::string(9000, 'p') + "\"}",
                            "bash");
  EXPECT_FALSE(huge.ok());
}

TEST(AgentPromptTest, RenderAppendsConventionsAsABulletedList) {
  AgentProfile p;
  p.system_prompt = "Be brief.\n";
  EXPECT_EQ(RenderSystemPrompt(p), "Be brief.");
  p.conventions = {"one", "two"};
  EXPECT_EQ(RenderSystemPrompt(p), "Be brief.\n\nConventions:\n- one\n- two");
}

}  // namespace
}  // namespace coderunner::intent
