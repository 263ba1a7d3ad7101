#include "exit_codes.h"

#include <string>

#include "coderunner/wire/result_json.h"

namespace coderunner::cli {

int ExitCodeForResult(const nlohmann::json& result) {
  if (!result.is_object()) return kExitError;
  std::string status = result.value("status", "");
  auto exit_code = result.find("exit_code");
  bool has_code = exit_code != result.end() && exit_code->is_number_integer();
  // Exit statuses are 8 bits wide; anything else cannot be mirrored.
  int code = has_code ? static_cast<int>(exit_code->get<int64_t>() & 0xff) : 0;
  if (status == "succeeded") return code;
  if (status == "failed") {
    auto signal = result.find("signal");
    if (signal != result.end() && signal->is_string()) {
      int sig = wire::SignalNumber(signal->get<std::string>());
      if (sig > 0) return 128 + sig;
    }
    // A failed job always fails the command, even if it exited 0 before an
    // /output bound stopped it.
    return has_code && code != 0 ? code : kExitFailed;
  }
  if (status == "timeout") return kExitTimeout;
  if (status == "oom") return kExitOom;
  if (status == "cancelled") return kExitCancelled;
  return kExitError;
}

}  // namespace coderunner::cli
