#include "ui_routes.h"

#include <string>

#include "coderunner/common/ids.h"
#include "coderunner/common/status.h"
#include "coderunner/ui/assets.h"

namespace coderunner::api {
namespace {

constexpr char kIndex[] = "index.html";

StatusOr<Answer> IndexAnswer() {
  const ui::Asset* index = ui::FindAsset(kIndex);
  if (index == nullptr) {
    return NotFoundError(
        "this coderunner was built without the web playground (-DCODERUNNER_UI=OFF); "
        "the API works as always (GET /openapi.json)",
        kReasonUiNotBuilt);
  }
  // A fresh nonce per response: the page is never cached, so no nonce is
  // ever reused.
  std::string nonce = NewId("csp");
  std::string page(index->body);
  for (size_t at = page.find(ui::kNoncePlaceholder); at != std::string::npos;
       at = page.find(ui::kNoncePlaceholder, at + nonce.size())) {
    page.replace(at, ui::kNoncePlaceholder.size(), nonce);
  }
  return Answer::Text(200, std::move(page), std::string(index->content_type))
      .WithHeader("Content-Security-Policy", PageCsp(nonce))
      .WithHeader("Cache-Control", "no-store");
}

StatusOr<Answer> AssetAnswer(const httplib::Request& req) {
  std::string name = req.matches[1];
  const ui::Asset* asset = name == kIndex ? nullptr : ui::FindAsset(name);
  if (asset == nullptr) return NotFoundError("no playground file '" + name + "'", "not_found");
  // Revalidated on every load (no-cache), answered 304 when unchanged.
  if (req.get_header_value("If-None-Match") == asset->etag) {
    return Answer::Text(304, "", std::string(asset->content_type))
        .WithHeader("ETag", std::string(asset->etag))
        .WithHeader("Cache-Control", "no-cache");
  }
  return Answer::Text(200, std::string(asset->body), std::string(asset->content_type))
      .WithHeader("ETag", std::string(asset->etag))
      .WithHeader("Cache-Control", "no-cache");
}

}  // namespace

std::string PageCsp(std::string_view nonce) {
  return "default-src 'none'; script-src 'self'; style-src 'self' 'nonce-" + std::string(nonce) +
         "'; img-src 'self' blob: data:; connect-src 'self'; font-src 'self'; "
         "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
}

void RegisterUiRoutes(RouteTable& http, const AuthAdapter& auth) {
  http.Get("/", auth.Open([](const httplib::Request&) { return IndexAnswer(); }));
  http.Get("/ui/(.+)", auth.Open([](const httplib::Request& req) { return AssetAnswer(req); }));
}

}  // namespace coderunner::api
