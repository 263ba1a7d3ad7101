// The OpenAPI 3 document of the whole HTTP API, served at GET /openapi.json.
#ifndef CODERUNNER_API_OPENAPI_H_
#define CODERUNNER_API_OPENAPI_H_

#include <string_view>

namespace coderunner::api {

// The text of src/api/openapi.json, compiled in at build time (CMake
// generates its definition). Static storage; thread-safe.
std::string_view OpenApiDocument();

}  // namespace coderunner::api

#endif  // CODERUNNER_API_OPENAPI_H_
