// Fuzzes request parsing and validation: ParseExecuteRequest then
// BuildJobSpec on arbitrary bytes. Must never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "coderunner/api/execute_request.h"
#include "coderunner/config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const coderunner::config::Config config = coderunner::config::DefaultConfig();
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto req = coderunner::api::ParseExecuteRequest(body, coderunner::api::RequestCaps{});
  if (req.ok()) (void)coderunner::api::BuildJobSpec(*req, config, "job-fuzz");
  return 0;
}
