// See prestart.h.
#define _GNU_SOURCE
#include "prestart.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "go_fifo.h"
#include "job_start.h"

char** PrestartArgv(const InitOptions* o) {
  static char* argv[kMaxCommand + 1];
  int n = 0;
  for (; n < o->prestart_words && n < kMaxCommand; ++n) argv[n] = o->command[n];
  argv[n] = NULL;
  return argv;
}

void StartPrestart(const InitOptions* o, char** argv, Prestarted* p) {
  p->pid = -1;
  p->release_fd = -1;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return;
  // Best effort: the default 64 KiB holds any release but the largest.
  (void)fcntl(pipe_fds[1], F_SETPIPE_SZ, kPrestartPipeBytes);
  // Never block: a release that does not fit whole is not sent.
  (void)fcntl(pipe_fds[1], F_SETFL, O_NONBLOCK);
  pid_t pid = -1;
  const char* failed = StartProcess(o, argv, pipe_fds[0], &pid);
  close(pipe_fds[0]);
  if (failed != NULL) {
    if (pid > 0) waitpid(pid, NULL, 0);  // It exited 127 on its own.
    close(pipe_fds[1]);
    return;
  }
  p->pid = pid;
  p->release_fd = pipe_fds[1];
}

// The release message: the stdin file's path ("" for /dev/null), then each
// word of `argv`, each NUL-terminated. -1 if it does not fit `cap` bytes.
static long EncodeRelease(const InitOptions* o, char** argv, char* buf, size_t cap) {
  size_t n = 0;
  const char* first = o->stdin_path != NULL ? o->stdin_path : "";
  for (int k = -1; k < 0 || argv[k] != NULL; ++k) {
    const char* word = k < 0 ? first : argv[k];
    size_t len = strlen(word) + 1;
    if (n + len > cap) return -1;
    memcpy(buf + n, word, len);
    n += len;
  }
  return (long)n;
}

// Writes the release whole, or not at all: 0 on success.
static int WriteRelease(const InitOptions* o, int fd, char** argv) {
  static char buf[kPrestartPipeBytes / 2];
  long n = EncodeRelease(o, argv, buf, sizeof(buf));
  if (n < 0) return -1;
  ssize_t w;
  while ((w = write(fd, buf, (size_t)n)) < 0 && errno == EINTR) {
  }
  return w == n ? 0 : -1;
}

const char* ReleasePrestarted(const InitOptions* o, Prestarted* p, char** job_argv, pid_t* child) {
  pid_t pid = p->pid;
  int fd = p->release_fd;
  p->pid = -1;
  p->release_fd = -1;
  int alive = pid > 0 && waitpid(pid, NULL, WNOHANG) == 0;
  // A dead reader makes the write fail with EPIPE (init ignores SIGPIPE).
  if (alive && WriteRelease(o, fd, job_argv) == 0) {
    close(fd);
    *child = pid;
    return NULL;
  }
  if (fd >= 0) close(fd);
  if (alive) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
  }
  return StartJob(o, job_argv, child);
}
