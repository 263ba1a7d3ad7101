// Fuzzes coderunner-init's parser of the warm pool's "go" message
// (src/init/go_message.c, compiled here with the sanitizers; the init
// binary itself is static and never sanitized). The input is the whole
// message as read from the FIFO: 8-byte header, then the payload, which
// is handed over in a buffer of exactly its size so any read past it is
// caught. Checks: the nonce is short lower-case hex, every argument lies
// inside the payload and is NUL-terminated there.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "init/go_message.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kGoHeaderBytes) return 0;
  long len = GoPayloadLength(data);
  if (len > kMaxGoPayloadBytes) __builtin_trap();
  // Parse what follows the header whatever it announced, as well as the
  // announced length when the input holds it.
  size_t rest = size - kGoHeaderBytes;
  size_t n = len > 0 && static_cast<size_t>(len) <= rest ? static_cast<size_t>(len) : rest;
  if (n == 0) return 0;
  std::vector<char> payload(data + kGoHeaderBytes, data + kGoHeaderBytes + n);
  static GoMessage msg;
  if (ParseGoPayload(payload.data(), payload.size(), &msg) != 0) return 0;
  size_t nonce_len = strlen(msg.nonce);
  if (nonce_len > kMaxGoNonce || strspn(msg.nonce, "0123456789abcdef") != nonce_len) {
    __builtin_trap();
  }
  if (msg.nargs < 0 || msg.nargs > kMaxGoArgs) __builtin_trap();
  const char* begin = payload.data();
  const char* end = begin + payload.size();
  for (int i = 0; i < msg.nargs; ++i) {
    const char* a = msg.args[i];
    if (a < begin || a >= end || memchr(a, '\0', static_cast<size_t>(end - a)) == nullptr) {
      __builtin_trap();
    }
  }
  return 0;
}
