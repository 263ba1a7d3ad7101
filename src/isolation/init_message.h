// The service's side of the "go" message that starts a job in a warm
// container: what ContainerRunner writes into the pooled container's FIFO
// when a job arrives. The protocol with coderunner-init has two halves on
// each side:
//   service -> init: the go message, encoded here; decoded by init's
//     src/init/go_message.c (GoPayloadLength, ParseGoPayload).
//   init -> service: the stdout end marker and the metrics trailer, written
//     by src/init/coderunner_init.c and job_metrics.c; decoded by
//     coderunner/isolation/init_trailer.h.
// tests/unit/isolation/init_message_test.cc encodes here and decodes with
// init's C decoder, so a change on either side breaks a test.
//
// Wire format: "CRGO", the payload length (4 bytes, little-endian), then the
// payload: NUL-terminated fields "stdin" or "-", the end nonce, the mode
// ("once", "more", "last" or "reuse"), then each argument. What a job's container needs besides
// (code, files, stdin bytes, environment, limits) travels as workspace files and init's command
// line, not in this message.
#ifndef CODERUNNER_ISOLATION_INIT_MESSAGE_H_
#define CODERUNNER_ISOLATION_INIT_MESSAGE_H_

#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::isolation {

// Whether the container runs one job, or a series of cases one after
// another (each a fresh process; init clears what a case left before it
// takes the next go).
enum class GoMode {
  kOnce,  // The container's one job: init exits after it.
  kMore,  // A case of a series: another go follows its end.
  kLast,  // A series' last case: init exits after it.
  // One of a reuse scope's jobs (container reuse): as kMore, but init
  // leaves /output to the service and empties it before the next job.
  kReuse,
};

// What one go message tells init.
struct GoRequest {
  // The workspace's stdin file is the job's stdin (else /dev/null).
  bool with_stdin = false;
  // Lower-case hex, at most 64 characters ("" = none): init ends stdout with
  // StdoutEndMarker(nonce) and puts it in its trailer's "eof".
  std::string nonce;
  // Appended to the language's command; none may hold a NUL byte.
  std::vector<std::string> args;
  GoMode mode = GoMode::kOnce;
};

// Whether a job with `args` can start through a go message: the whole
// message must fit one write into an empty pipe and init's bounds (at most
// 1000 arguments, the payload well under init's 60000 bytes). A job that
// does not fit runs cold. Pure; thread-safe.
bool FitsGoMessage(const std::vector<std::string>& args);

// The go message for `go`, header and payload, ready for one write(2). Does
// not check its input: callers check FitsGoMessage and pass a hex nonce;
// an argument with a NUL byte would arrive as two. Pure; thread-safe.
std::string EncodeGoMessage(const GoRequest& go);

// Writes the go message for `go` into a pooled container's FIFO `fd`, in
// one write (the message is far smaller than a pipe buffer, which is
// empty). InternalError "pool_go_failed" if it did not go whole.
Status WriteGoMessage(int fd, const GoRequest& go);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_INIT_MESSAGE_H_
