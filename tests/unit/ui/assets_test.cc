// The playground's files compiled into the binary (cmake/embed_assets.cmake).
#include "coderunner/ui/assets.h"

#include <gtest/gtest.h>

#include <string>

#include "coderunner/common/sha256.h"

namespace coderunner::ui {
namespace {

TEST(UiAssetsTest, ThePageAndItsBundleAreCompiledIn) {
  struct Case {
    const char* name;
    const char* content_type;
    const char* must_contain;
  };
  const Case cases[] = {
      {"index.html", "text/html; charset=utf-8", "<script type=\"module\" src=\"/ui/app.js\">"},
      {"app.js", "text/javascript; charset=utf-8", "coderunner.apiKey"},
      {"app.css", "text/css; charset=utf-8", ":focus-visible"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Asset* a = FindAsset(c.name);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->content_type, c.content_type);
    EXPECT_NE(a->body.find(c.must_contain), std::string_view::npos);
    // A strong ETag: the body's SHA-256, quoted.
    EXPECT_EQ(a->etag, "\"" + Sha256Hex(a->body) + "\"");
  }
}

TEST(UiAssetsTest, ThePageCarriesTheNoncePlaceholderAndNoInlineScript) {
  const Asset* index = FindAsset("index.html");
  ASSERT_NE(index, nullptr);
  EXPECT_NE(index->body.find(kNoncePlaceholder), std::string_view::npos);
  // Every <script> loads a file: the CSP allows no inline script.
  for (size_t at = index->body.find("<script"); at != std::string_view::npos;
       at = index->body.find("<script", at + 1)) {
    std::string_view tag = index->body.substr(at, index->body.find('>', at) - at);
    EXPECT_NE(tag.find("src=\"/ui/"), std::string_view::npos) << tag;
  }
  EXPECT_EQ(index->body.find(" onclick="), std::string_view::npos);
  EXPECT_EQ(index->body.find(" onload="), std::string_view::npos);
}

TEST(UiAssetsTest, LooksUpOnlyExactNames) {
  for (const char* name : {"", "../index.html", "/app.js", "APP.JS", "app.js/", "index"}) {
    EXPECT_EQ(FindAsset(name), nullptr) << name;
  }
  for (size_t i = 1; i < Assets().size(); ++i) {
    EXPECT_LT(Assets()[i - 1].name, Assets()[i].name);
  }
}

}  // namespace
}  // namespace coderunner::ui
