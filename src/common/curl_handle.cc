#include "coderunner/common/curl_handle.h"

#include <mutex>

namespace coderunner {

void CurlGlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace coderunner
