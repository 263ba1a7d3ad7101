// See stream_write.h.
#define _GNU_SOURCE
#include "stream_write.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int WriteWhole(int fd, const char* buf, size_t n) {
  int retries = 0;
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w > 0) {
      buf += w;
      n -= (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == ENOMEM) && retries++ < kStreamWriteRetries) {
      struct timespec ts = {0, kStreamWriteBackoffNs};
      nanosleep(&ts, NULL);
      continue;
    }
    return -1;
  }
  return 0;
}

int WriteLine(int fd, size_t cap, const char* format, ...) {
  char line[cap];
  va_list args;
  va_start(args, format);
  int len = vsnprintf(line, cap, format, args);
  va_end(args);
  if (len < 0 || (size_t)len >= cap) return -1;
  return WriteWhole(fd, line, (size_t)len);
}
