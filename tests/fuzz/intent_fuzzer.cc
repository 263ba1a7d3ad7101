// Fuzzes what Execute mode reads from outside: a model's reply (code
// extraction, a generated agent profile), a program's stderr (error
// summaries), and the POST /v1/intents body with its inputs (request
// parsing, the preamble). Must never crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "coderunner/config/config.h"
#include "coderunner/intent/agent_catalog.h"
#include "coderunner/intent/intent_request.h"
#include "intent/code_extract.h"
#include "intent/error_summary.h"
#include "intent/preamble.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const coderunner::config::Config config = coderunner::config::DefaultConfig();
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (const char* language : {"python", "javascript", "bash"}) {
    (void)coderunner::intent::ExtractCode(bytes, language);
    (void)coderunner::intent::SummarizeError(language, bytes, "main.py", 3);
    (void)coderunner::intent::ParseGeneratedProfile(bytes, language);
  }
  auto req = coderunner::intent::ParseIntentRequest(bytes, config, nullptr);
  if (req.ok()) {
    for (const char* language : {"python", "javascript", "bash"}) {
      (void)coderunner::intent::BuildPreamble(language, req->inputs);
    }
  }
  return 0;
}
