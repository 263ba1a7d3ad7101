// Attack: fill /tmp, the only writable place besides /output, from C to
// exhaust the host's memory or disk.
// Contained by limits.tmp_bytes: a write fails (ENOSPC at the tmpfs size,
// or EFBIG/SIGXFSZ at RLIMIT_FSIZE) and no more than tmp_bytes is written.
// Reports "stopped ERRNO" and "written N".
#define _GNU_SOURCE  // strerrorname_np
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  signal(SIGXFSZ, SIG_IGN);  // Report EFBIG rather than die of it.
  static char chunk[1 << 20];
  memset(chunk, 'x', sizeof chunk);
  int fd = open("/tmp/fill", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  long long written = 0;
  while (written < (1LL << 30)) {
    ssize_t n = write(fd, chunk, sizeof chunk);
    if (n <= 0) {
      printf("stopped %s\n", n < 0 ? strerrorname_np(errno) : "short");
      break;
    }
    written += n;
  }
  printf("written %lld\n", written);
  return 0;
}
