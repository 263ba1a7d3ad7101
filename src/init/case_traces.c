// See case_traces.h.
#define _GNU_SOURCE
#include "case_traces.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

enum { kDirOpenFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC };

static int IsDotOrDotDot(const char* name) {
  return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

static int ClearTree(int dirfd, int depth, long long* budget);

// Removes entry `name` of `dirfd`, a directory with everything in it.
// Returns 0 or -1.
static int RemoveEntry(int dirfd, const char* name, int depth, long long* budget) {
  if (--*budget < 0) return -1;
  struct stat st;
  if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlinkat(dirfd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
  if (depth >= kMaxClearDepth) return -1;
  // The job's own directory (same uid): it may have taken its own rights
  // away, which its owner can give back.
  (void)fchmodat(dirfd, name, 0700, 0);
  int fd = openat(dirfd, name, kDirOpenFlags);
  if (fd < 0) return -1;
  int cleared = ClearTree(fd, depth + 1, budget);
  close(fd);
  if (cleared != 0) return -1;
  return unlinkat(dirfd, name, AT_REMOVEDIR) == 0 ? 0 : -1;
}

// Removes every entry of `dirfd` (not closed). Returns 0 when it is
// empty afterwards, else -1.
static int ClearTree(int dirfd, int depth, long long* budget) {
  int own = dup(dirfd);
  if (own < 0) return -1;
  DIR* d = fdopendir(own);
  if (d == NULL) {
    close(own);
    return -1;
  }
  int failed = 0;
  // Removing while reading may skip entries: read again until a pass finds
  // nothing (each pass removes at least one entry, or fails).
  for (int found = 1; found && !failed;) {
    found = 0;
    rewinddir(d);
    struct dirent* e;
    while (!failed && (e = readdir(d)) != NULL) {
      if (IsDotOrDotDot(e->d_name)) continue;
      found = 1;
      failed = RemoveEntry(dirfd, e->d_name, depth, budget) != 0;
    }
  }
  closedir(d);
  return failed ? -1 : 0;
}

int ClearDirectories(const char* const* dirs, int n) {
  long long budget = kMaxClearEntries;
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    if (dirs[i] == NULL) continue;
    int fd = open(dirs[i], kDirOpenFlags);
    if (fd < 0 || ClearTree(fd, 0, &budget) != 0) failed = 1;
    if (fd >= 0) close(fd);
  }
  return failed ? -1 : 0;
}

int ClearOwnedDirectory(const char* dir, unsigned mode) {
  long long budget = kMaxClearEntries;
  int fd = open(dir, kDirOpenFlags);
  if (fd < 0) return -1;
  struct stat st;
  int failed = fchmod(fd, (mode_t)mode) != 0 || ClearTree(fd, 0, &budget) != 0 ||
               fstat(fd, &st) != 0 || (st.st_mode & 07777) != (mode_t)mode;
  close(fd);
  return failed ? -1 : 0;
}

// The ids /proc/sysvipc/`kind` lists (its second column), up to `max`;
// the count, or -1 if the file cannot be read.
static int ListIpcIds(const char* kind, int* ids, int max) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/sysvipc/%s", kind);
  FILE* f = fopen(path, "re");
  if (f == NULL) return -1;
  char line[512];
  int n = 0;
  int header = 1;
  while (fgets(line, sizeof(line), f) != NULL) {
    if (header) {
      header = 0;
      continue;
    }
    long long key;
    int id;
    if (sscanf(line, "%lld %d", &key, &id) == 2 && n < max) ids[n++] = id;
  }
  fclose(f);
  return n;
}

enum { kMaxIpcIds = 4096 };

// Removes every object of one kind; 0 when /proc lists none afterwards.
static int ClearIpcKind(const char* kind, int (*remove_id)(int)) {
  static int ids[kMaxIpcIds];
  // A listing cut at kMaxIpcIds is finished by the next round.
  for (int round = 0; round < 4; ++round) {
    int n = ListIpcIds(kind, ids, kMaxIpcIds);
    if (n < 0) return -1;
    if (n == 0) return 0;
    for (int i = 0; i < n; ++i) (void)remove_id(ids[i]);
  }
  return ListIpcIds(kind, ids, kMaxIpcIds) == 0 ? 0 : -1;
}

static int RemoveShm(int id) { return shmctl(id, IPC_RMID, NULL); }
static int RemoveMsg(int id) { return msgctl(id, IPC_RMID, NULL); }
static int RemoveSem(int id) { return semctl(id, 0, IPC_RMID); }

int ClearSysvIpc(void) {
  int failed = ClearIpcKind("shm", RemoveShm) != 0;
  failed |= ClearIpcKind("msg", RemoveMsg) != 0;
  failed |= ClearIpcKind("sem", RemoveSem) != 0;
  return failed ? -1 : 0;
}
