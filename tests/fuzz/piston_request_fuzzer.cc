// Fuzzes the Piston-compatible API's request path: TranslatePistonRequest on
// arbitrary bytes (versions, aliases, unnamed files, base64/hex encodings,
// limits), then the translated body through our own ParseExecuteRequest and
// BuildJobSpec, as the route does. Must never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/piston_request.h"
#include "coderunner/config/config.h"
#include "coderunner/wire/execute_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const coderunner::config::Config config = coderunner::config::DefaultConfig();
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto call = coderunner::api::TranslatePistonRequest(body, config, nullptr);
  if (!call.ok()) {
    (void)coderunner::api::PistonErrorJson(call.status());
    return 0;
  }
  // As the route does: decoded file content may be any bytes, which JSON
  // strings cannot carry, so they are replaced rather than thrown on.
  std::string body_json =
      call->execute.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto req = coderunner::wire::ParseExecuteRequest(body_json, coderunner::wire::RequestCaps{});
  if (req.ok()) (void)coderunner::wire::BuildJobSpec(*req, config, "job-fuzz");
  return 0;
}
