// See go_fifo.h.
#define _GNU_SOURCE
#include "go_fifo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// Reads exactly `n` bytes from `fd`; 0 on success, -1 on EOF, error or a
// stop request (unless `ignore_stop`: then the stop is dropped).
static int ReadFull(int fd, char* buf, size_t n, int ignore_stop, volatile sig_atomic_t* stop) {
  while (n > 0) {
    ssize_t r = read(fd, buf, n);
    if (r < 0 && errno == EINTR && ignore_stop) *stop = 0;
    if (r < 0 && errno == EINTR && !*stop) continue;
    if (r <= 0) return -1;
    buf += r;
    n -= (size_t)r;
  }
  return 0;
}

// The go FIFO, opened at the first wait and kept open through a series:
// the service writes the next case's go as soon as it has this case's
// trailer, and a FIFO with no reader would refuse that write.
static int g_go_fd = -1;

const GoMessage* AwaitGo(const char* fifo, int between_cases, volatile sig_atomic_t* stop) {
  if (g_go_fd < 0) g_go_fd = open(fifo, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (g_go_fd < 0) {
    if (!*stop) dprintf(2, "coderunner-init: open %s: %s\n", fifo, strerror(errno));
    return NULL;
  }
  static char payload[kMaxGoPayloadBytes + 1];
  static GoMessage msg;
  unsigned char head[kGoHeaderBytes];
  long len = ReadFull(g_go_fd, (char*)head, sizeof(head), between_cases, stop) == 0
                 ? GoPayloadLength(head)
                 : -1;
  int ok = len > 0 && ReadFull(g_go_fd, payload, (size_t)len, between_cases, stop) == 0 &&
           ParseGoPayload(payload, (size_t)len, &msg) == 0;
  if (!ok || !msg.series) {
    close(g_go_fd);
    g_go_fd = -1;
  }
  if (!ok) {
    if (!*stop) dprintf(2, "coderunner-init: bad go message\n");
    return NULL;
  }
  return &msg;
}

char** JobArgv(char** cmd, const GoMessage* go) {
  static char* argv[kMaxGoArgs + kMaxCommand + 1];
  int n = 0;
  for (char** c = cmd; *c != NULL && n < kMaxCommand; ++c) argv[n++] = *c;
  for (int k = 0; k < go->nargs; ++k) argv[n++] = (char*)go->args[k];
  argv[n] = NULL;
  return argv;
}
