// See proc_masks.h.
#define _GNU_SOURCE
#include "proc_masks.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

enum { kMaxPath = 256 };

static int IsEmptyDir(const char* path) {
  DIR* d = opendir(path);
  if (d == NULL) return errno == EACCES || errno == ENOENT;
  int empty = 1;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
      empty = 0;
      break;
    }
  }
  closedir(d);
  return empty;
}

static int IsMasked(const char* path) {
  struct stat st;
  // Unreachable counts as masked (gVisor answers EINVAL for paths its /proc
  // does not have).
  if (lstat(path, &st) != 0) {
    return errno == ENOENT || errno == EACCES || errno == ENOTDIR || errno == EINVAL;
  }
  if (S_ISCHR(st.st_mode)) return major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
  if (S_ISDIR(st.st_mode)) return IsEmptyDir(path);
  return 0;
}

static int IsReadOnly(const char* path) {
  struct statvfs vfs;
  if (statvfs(path, &vfs) != 0) return errno == ENOENT || errno == EACCES;
  return (vfs.f_flag & ST_RDONLY) != 0;
}

// Calls `check` on each path of the colon-separated `list`; the first that
// fails is copied into `bad`. Returns 0 when all pass.
static int CheckEach(const char* list, int (*check)(const char*), char* bad) {
  if (list == NULL) return 0;
  const char* p = list;
  while (*p != '\0') {
    const char* end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > 0) {
      char path[kMaxPath];
      if (len >= sizeof(path)) len = sizeof(path) - 1;
      memcpy(path, p, len);
      path[len] = '\0';
      if (!check(path)) {
        memcpy(bad, path, len + 1);
        return -1;
      }
    }
    if (end == NULL) break;
    p = end + 1;
  }
  return 0;
}

const char* CheckProcMasks(const char* masked, const char* readonly) {
  static char bad[kMaxPath];
  if (CheckEach(masked, IsMasked, bad) != 0) return bad;
  if (CheckEach(readonly, IsReadOnly, bad) != 0) return bad;
  return NULL;
}

int RunsUnderSeccompFilter(void) {
  FILE* f = fopen("/proc/self/status", "re");
  if (f == NULL) return 0;
  char line[256];
  int mode = 0;
  while (fgets(line, sizeof(line), f) != NULL) {
    if (strncmp(line, "Seccomp:", 8) == 0) {
      mode = line[8 + strspn(line + 8, " \t")] == '2';
      break;
    }
  }
  fclose(f);
  return mode;
}
