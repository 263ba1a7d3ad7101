// See go_message.h.
#include "go_message.h"

#include <string.h>

long GoPayloadLength(const unsigned char header[kGoHeaderBytes]) {
  if (memcmp(header, "CRGO", 4) != 0) return -1;
  unsigned long len = (unsigned long)header[4] | (unsigned long)header[5] << 8 |
                      (unsigned long)header[6] << 16 | (unsigned long)header[7] << 24;
  if (len == 0 || len > kMaxGoPayloadBytes) return -1;
  return (long)len;
}

int ParseGoPayload(const char* payload, size_t len, GoMessage* out) {
  memset(out, 0, sizeof(*out));
  if (len == 0 || payload[len - 1] != '\0') return -1;
  const char* p = payload;
  const char* end = payload + len;
  out->with_stdin = strcmp(p, "stdin") == 0;
  p += strlen(p) + 1;
  if (p >= end) return -1;
  // The nonce is printed inside JSON without escaping: hex only.
  size_t nonce_len = strlen(p);
  if (nonce_len > kMaxGoNonce || strspn(p, "0123456789abcdef") != nonce_len) return -1;
  memcpy(out->nonce, p, nonce_len + 1);
  p += nonce_len + 1;
  if (p >= end) return -1;
  if (strcmp(p, "more") == 0) {
    out->series = out->more = 1;
  } else if (strcmp(p, "reuse") == 0) {
    out->series = out->more = out->keep_output = 1;
  } else if (strcmp(p, "last") == 0) {
    out->series = 1;
  } else if (strcmp(p, "once") != 0) {
    return -1;
  }
  p += strlen(p) + 1;
  while (p < end) {
    if (out->nargs >= kMaxGoArgs) return -1;
    out->args[out->nargs++] = p;
    p += strlen(p) + 1;
  }
  return 0;
}
