// GET / and GET /ui/{file}: the web playground (coderunner/ui/assets.h).
// The page needs no key to load: it holds no data, asks for a key (kept in
// the browser's sessionStorage) and calls the API like any other client.
#ifndef CODERUNNER_API_UI_ROUTES_H_
#define CODERUNNER_API_UI_ROUTES_H_

#include <string>
#include <string_view>

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"

namespace coderunner::api {

// error.code of GET / when the binary was built with -DCODERUNNER_UI=OFF.
inline constexpr char kReasonUiNotBuilt[] = "ui_not_built";

// The page's Content-Security-Policy for one response: scripts and styles
// from this origin only (no inline script, no eval), styles also with
// `nonce` (the editor's own <style> element), images from this origin,
// blob: (an artifact fetched with the key) and data:, fetches to this
// origin only, no plugins, no <base>, no form posts, and no framing.
std::string PageCsp(std::string_view nonce);

// Registers GET / (index.html, its nonce placeholder replaced per response,
// never cached) and GET /ui/{path} (the other compiled-in files, with a
// strong ETag; If-None-Match answers 304). Register only when ui.enabled.
// Built without the playground, GET / answers 404 kReasonUiNotBuilt.
void RegisterUiRoutes(RouteTable& http, const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_UI_ROUTES_H_
