// Fuzzes the fleet's notice payloads as read from the PostgreSQL channel
// (any client of the database may NOTIFY anything there): DecodeJobNotice
// on arbitrary bytes. What it accepts must pass CheckJobNotice and encode
// back to the very same payload (one canonical form). Must never crash,
// hang or leak.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "store/postgres/job_notice_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view payload(reinterpret_cast<const char*>(data), size);
  std::optional<coderunner::store::JobNotice> notice = coderunner::store::DecodeJobNotice(payload);
  if (!notice) return 0;
  if (!coderunner::store::CheckJobNotice(*notice).ok()) std::abort();
  if (coderunner::store::EncodeJobNotice(*notice) != payload) std::abort();
  return 0;
}
