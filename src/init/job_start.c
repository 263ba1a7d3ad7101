// See job_start.h.
#define _GNU_SOURCE
#include "job_start.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "prestart.h"

// Where a passed descriptor is parked while descriptor kPrestartFd is
// set up: above anything init has open.
enum { kHighFd = 10 };

// Tells init's parent, through the close-on-exec pipe `report`, why the job
// could not start, and ends the child.
static void StartFailed(int report, char why, const char* what) {
  dprintf(2, "coderunner-init: %s: %s\n", what, strerror(errno));
  if (write(report, &why, 1) < 0) { /* the exit status still says 127 */
  }
  _exit(127);
}

// Makes `pass_fd` descriptor kPrestartFd of the process (not
// close-on-exec), and `*report` a descriptor above it, whatever numbers
// they had.
static void PlacePassedFd(int pass_fd, int* report) {
  int high_report = fcntl(*report, F_DUPFD_CLOEXEC, kHighFd);
  int high_pass = fcntl(pass_fd, F_DUPFD, kHighFd);
  if (high_report < 0 || high_pass < 0) StartFailed(*report, 'e', "descriptors");
  *report = high_report;
  if (dup2(high_pass, kPrestartFd) < 0) StartFailed(*report, 'e', "descriptors");
  close(high_pass);
}

// The forked child: becomes the job. `report` is closed by a successful
// exec. The seccomp filter is already in place (inherited from init).
static void ExecJob(const InitOptions* o, char** argv, int report, int pass_fd) {
  // A group and session of its own: kill(0, ...) and killpg never reach
  // init.
  setsid();
  // init is non-dumpable; the job's own /proc entries must be its own
  // again (execve would restore this anyway).
  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  // A prestarted process opens the job's stdin itself when released.
  const char* in = o->stdin_path != NULL && pass_fd < 0 ? o->stdin_path : "/dev/null";
  int fd = open(in, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 || dup2(fd, 0) < 0) StartFailed(report, 'i', "open stdin");
  if (pass_fd >= 0) PlacePassedFd(pass_fd, &report);
  // The job, not this init, should be the OOM killer's first choice. Raising
  // one's own score needs no privilege; failure is harmless.
  int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (adj >= 0) {
    if (write(adj, "1000", 4) < 0) { /* best effort */
    }
    close(adj);
  }
  for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);  // The parent blocks SIGCHLD; the job must not.
  // execvpe searches PATH from the caller's environment, not envp, so look
  // the command up in the job's own PATH by hand.
  const char* cmd = argv[0];
  if (strchr(cmd, '/') == NULL) {
    const char* path = "/usr/local/bin:/usr/bin:/bin";
    for (char* const* e = o->envp; *e; ++e) {
      if (strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
    }
    char buf[4096];
    const char* p = path;
    while (*p) {
      const char* end = strchr(p, ':');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      if (len > 0 && len + strlen(cmd) + 2 < sizeof(buf)) {
        memcpy(buf, p, len);
        buf[len] = '/';
        strcpy(buf + len + 1, cmd);
        execve(buf, argv, o->envp);
      }
      if (!end) break;
      p = end + 1;
    }
    errno = ENOENT;
    StartFailed(report, 'e', cmd);
  }
  execve(cmd, argv, o->envp);
  StartFailed(report, 'e', cmd);
}

const char* StartJob(const InitOptions* o, char** argv, pid_t* child) {
  return StartProcess(o, argv, -1, child);
}

const char* StartProcess(const InitOptions* o, char** argv, int pass_fd, pid_t* child) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) return "fork";
  *child = fork();
  if (*child < 0) {
    dprintf(2, "coderunner-init: fork: %s\n", strerror(errno));
    close(report[0]);
    close(report[1]);
    return "fork";
  }
  if (*child == 0) {
    close(report[0]);
    ExecJob(o, argv, report[1], pass_fd);
  }
  close(report[1]);
  char why = 0;
  ssize_t n;
  while ((n = read(report[0], &why, 1)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (n <= 0) return NULL;
  return why == 'i' ? "stdin" : "exec";
}
