// go_message: the warm pool's "go" message, which the service writes into a
// pooled container's FIFO when a job arrives (see coderunner_init.c):
//   "CRGO" + 4-byte little-endian payload length + payload, where the
//   payload is NUL-terminated fields: "stdin" or "-" (whether the
//   workspace's stdin file is the job's stdin), an end nonce (lower-case
//   hex, at most 64 characters, may be empty), the mode ("once": the
//   container's one job; "more": a case of a series, another go follows
//   its end; "last": a series' last case; "reuse": as "more", but /output
//   is left for the service to collect, and init empties it before the
//   next go's job starts, refusing to start it otherwise), then the
//   arguments appended to the command.
// The service's encoder is src/isolation/init_message.cc, tested against
// this parser in tests/unit/isolation/init_message_test.cc.
// The service is the only writer (the FIFO is root-owned, 0644), but the
// parser still treats the bytes as untrusted: it is fuzzed
// (tests/fuzz/go_message_fuzzer.cc) and unit-tested under the sanitizers.
// Pure; thread-compatible.
#ifndef CODERUNNER_INIT_GO_MESSAGE_H_
#define CODERUNNER_INIT_GO_MESSAGE_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  kGoHeaderBytes = 8,
  kMaxGoPayloadBytes = 60000,
  kMaxGoArgs = 1024,
  kMaxGoNonce = 64,
};

typedef struct {
  int with_stdin;                // The stdin file is the job's stdin.
  int series;                    // A case of a series ("more" or "last").
  int more;                      // Another go follows this case's end ("more", "reuse").
  int keep_output;               // /output is left after the case ("reuse").
  char nonce[kMaxGoNonce + 1];   // NUL-terminated hex; "" without a nonce.
  const char* args[kMaxGoArgs];  // Point into the payload passed to ParseGoPayload.
  int nargs;
} GoMessage;

// The payload length the 8-byte header announces, or -1 if the magic is
// wrong or the length is 0 or over kMaxGoPayloadBytes.
long GoPayloadLength(const unsigned char header[kGoHeaderBytes]);

// Parses `len` payload bytes. Returns 0, or -1 if the payload is malformed
// (not NUL-terminated, no nonce or mode field, a nonce that is not short
// lower-case hex, an unknown mode, more than kMaxGoArgs arguments).
// `out->args` borrow from `payload`.
int ParseGoPayload(const char* payload, size_t len, GoMessage* out);

#ifdef __cplusplus
}
#endif

#endif  // CODERUNNER_INIT_GO_MESSAGE_H_
