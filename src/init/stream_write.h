// stream_write: init's own lines on the container's stdout and stderr (the
// end marker and the trailer), written whole. Those are pipes to the
// engine; a pipe's buffer page is charged to the writer's memory cgroup,
// so right after the kernel's OOM killer ended a job, while its memory is
// still being freed, a write can fail with ENOMEM. A lost trailer loses
// the job's end as init saw it (on Podman, which reports no OOM kill, an
// OOM then reads as a plain SIGKILL), so the write is retried.
// Not thread-safe (init is single-threaded).
#ifndef CODERUNNER_INIT_STREAM_WRITE_H_
#define CODERUNNER_INIT_STREAM_WRITE_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  kStreamLineBytes = 1024,          // One of init's lines at most (its fields are bounded).
  kStreamWriteRetries = 250,        // Tries after a transient failure...
  kStreamWriteBackoffNs = 2000000,  // ...2 ms apart: half a second in all.
};

// Writes `n` bytes of `buf` to `fd`, retrying EINTR at once and EAGAIN and
// ENOMEM after a pause (bounded). 0 when all of it was written, else -1.
int WriteWhole(int fd, const char* buf, size_t n);

// printf into a buffer of `cap` bytes, then WriteWhole; -1 when the line
// does not fit or cannot be written.
int WriteLine(int fd, size_t cap, const char* format, ...) __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

#endif  // CODERUNNER_INIT_STREAM_WRITE_H_
