// Fuzzes request parsing and validation: ParseExecuteRequest then
// BuildJobSpec on arbitrary bytes. Must never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "coderunner/config/config.h"
#include "coderunner/wire/execute_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const coderunner::config::Config config = coderunner::config::DefaultConfig();
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto req = coderunner::wire::ParseExecuteRequest(body, coderunner::wire::RequestCaps{});
  if (req.ok()) (void)coderunner::wire::BuildJobSpec(*req, config, "job-fuzz");
  return 0;
}
