#include "coderunner/intent/agent_catalog.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "coderunner/intent/builtin_agents.h"

namespace coderunner::intent {
namespace {

namespace fs = std::filesystem;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
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
  EXPECT_EQ(BuiltinAgentYaml().size(), 3u);
  auto c = Open();
  ASSERT_NE(c, nullptr);
  for (const char* language : {"python", "javascript", "bash"}) {
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
      {"add 2 and 3", "python", true},
      {"compute the orbital period of a satellite from its altitude", "python", false},
      {"decode a base32 geohash into latitude and longitude", "python", false},
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
  // Same name again: suffixed, never overwritten.
  auto again = c->Add(Created("geo", "acme", {"x"}));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, "geo-2");
  // A built-in name is taken for everyone.
  EXPECT_EQ(*c->Add(Created("python-default", "acme", {"x"})), "python-default-2");

  auto reopened = Open();
  ASSERT_NE(reopened, nullptr);
  auto list = reopened->List("acme");
  ASSERT_EQ(list.size(), 6u);
  EXPECT_TRUE(list[0].builtin) << "shared profiles first";
  EXPECT_EQ(list[3].name, "geo");
  EXPECT_EQ(list[3].tenant, "acme");
  EXPECT_EQ(reopened->List("other").size(), 3u);
}

TEST_F(AgentCatalogTest, AddRefusesUnsafeOwnersAndCorruptFilesAreSkipped) {
  auto c = Open();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->Add(Created("x", "../evil", {"a"})).status().reason(), "bad_agent_profile");
  EXPECT_EQ(c->Add(Created("x", "", {"a"})).status().reason(), "bad_agent_profile");
  fs::create_directories(dir_ + "/store/acme");
  std::ofstream(dir_ + "/store/acme/broken.json") << "{not json";
  std::ofstream(dir_ + "/store/acme/stolen.json")
      << R"({"name":"stolen","language":"python","system_prompt":"x","tenant":"other"})";
  auto reopened = Open();
  ASSERT_NE(reopened, nullptr);
  EXPECT_EQ(reopened->List("acme").size(), 3u);
  EXPECT_EQ(reopened->List("other").size(), 3u);
}

TEST_F(AgentCatalogTest, ExtraDirectoryAddsSharedProfilesAndRejectsBadOnes) {
  fs::create_directories(dir_ + "/extra");
  std::ofstream(dir_ + "/extra/sql.yaml")
      << "name: python-sql\nlanguage: python\ndescription: sqlite\nkeywords: [sql, query]\n"
         "system_prompt: Use sqlite3.\n";
  auto c = Open(dir_ + "/extra");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->BestMatch("run a sql query", "python", "t")->profile.name, "python-sql");
  std::ofstream(dir_ + "/extra/bad.yaml") << "name: Bad Name\nlanguage: python\n";
  EXPECT_FALSE(AgentCatalog::Open(dir_ + "/extra", dir_ + "/store").ok());
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
      {"no object", "I cannot do that.", nullptr},
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
  auto huge =
      ParseGeneratedProfile(R"({"name":"x","description":"d","keywords":["k"],"system_prompt":")" +
                                std::string(9000, 'p') + "\"}",
                            "bash");
  EXPECT_FALSE(huge.ok());
}

TEST(RenderSystemPromptTest, AppendsConventionsAsAList) {
  AgentProfile p;
  p.system_prompt = "Be brief.\n";
  EXPECT_EQ(RenderSystemPrompt(p), "Be brief.");
  p.conventions = {"one", "two"};
  EXPECT_EQ(RenderSystemPrompt(p), "Be brief.\n\nConventions:\n- one\n- two");
}

}  // namespace
}  // namespace coderunner::intent
