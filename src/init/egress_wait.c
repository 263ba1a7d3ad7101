// See egress_wait.h.
#define _GNU_SOURCE
#include "egress_wait.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

// Between two tries, ns.
enum { kRetryNs = 2 * 1000 * 1000 };

int AwaitEgressProxy(int port, volatile sig_atomic_t* stop) {
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const struct timespec retry = {0, kRetryNs};
  int last_errno = 0;
  for (long waited_ns = 0; waited_ns < (long)kEgressWaitMs * 1000 * 1000; waited_ns += kRetryNs) {
    if (*stop) break;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last_errno = errno;
      break;
    }
    int rc = connect(fd, (struct sockaddr*)&addr, sizeof(addr));
    last_errno = errno;
    close(fd);
    if (rc == 0) return 0;
    nanosleep(&retry, NULL);
  }
  dprintf(2, "coderunner-init: the egress proxy never listened on 127.0.0.1:%d (%s)\n", port,
          last_errno != 0 ? strerror(last_errno) : "stopped");
  return -1;
}
