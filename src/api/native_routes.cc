#include "native_routes.h"

#include <string>

#include "coderunner/api/server.h"

namespace coderunner::api {

void RegisterNativeRefusals(RouteTable& http, const AuthAdapter& auth) {
  for (const char* prefix : {"/v1/sandboxes", "/v1/volumes"}) {
    std::string what = std::string(prefix).substr(4);  // "sandboxes", "volumes".
    auto refuse =
        auth.Wrap([what](const auth::Principal&, const httplib::Request&) -> StatusOr<Answer> {
          return UnavailableError(what +
                                      " need a container engine and are off while "
                                      "code_runner.runtime is native",
                                  kReasonNativeRuntime);
        });
    for (const std::string& pattern : {std::string(prefix), std::string(prefix) + "/(.+)"}) {
      http.Get(pattern, refuse);
      http.Post(pattern, refuse);
      http.Delete(pattern, refuse);
    }
  }
}

}  // namespace coderunner::api
