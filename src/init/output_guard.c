// See output_guard.h.
#define _GNU_SOURCE
#include "output_guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

enum { kMaxDepth = 64 };

// One entry of the pre-run snapshot: identity, size and allocation.
typedef struct {
  dev_t dev;
  ino_t ino;
  off_t size;
  blkcnt_t blocks;
} Known;

static Known* g_known = NULL;
static size_t g_known_len = 0;
static size_t g_known_cap = 0;
static int g_snapshot_ok = 0;

// Opens directory `name` in `dir` without following a symlink. A directory
// the job made unsearchable (chmod 000) is its own, and this process runs as
// the same uid: give it u+rwx back and retry once. fchmodat cannot refuse to
// follow a symlink, but it only ever succeeds on the job's own files.
static int OpenDir(int dir, const char* name) {
  int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == EACCES) {
    if (fchmodat(dir, name, 0700, 0) == 0) {
      fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
  }
  return fd;
}

// fstatat(AT_SYMLINK_NOFOLLOW) of `name` in directory `dir`. The job may
// have left `dir` readable but not searchable (chmod 0400), which makes
// every entry fail with EACCES: it is the job's own and this process runs
// as the same uid, so give it u+rwx back and retry once.
static int StatEntry(int dir, const char* name, struct stat* st) {
  if (fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW) == 0) return 0;
  if (errno != EACCES || fchmod(dir, 0700) != 0) return -1;
  return fstatat(dir, name, st, AT_SYMLINK_NOFOLLOW);
}

static int IsDots(const char* n) {
  return n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'));
}

typedef void (*Visitor)(void* ctx, const struct stat* st);

// Calls `visit` for every entry below directory `fd` (which it closes).
// Returns early once usage->entries passes `stop`.
static void Walk(int fd, int depth, long long stop, OutputUsage* usage, Visitor visit, void* ctx) {
  DIR* d = fdopendir(fd);
  if (d == NULL) {
    close(fd);
    usage->unreadable = 1;
    return;
  }
  struct dirent* e;
  for (errno = 0; (e = readdir(d)) != NULL; errno = 0) {
    if (IsDots(e->d_name)) continue;
    struct stat st;
    if (StatEntry(dirfd(d), e->d_name, &st) != 0) {
      // Gone since readdir: not there. Anything else hides what is below:
      // never counted as nothing.
      if (errno != ENOENT) usage->unreadable = 1;
      continue;
    }
    usage->entries++;
    if (stop > 0 && usage->entries > stop) break;
    if (visit != NULL) visit(ctx, &st);
    long long charge = OutputCharge(st.st_size, st.st_blocks, S_ISREG(st.st_mode), usage->block);
    usage->used += charge;
    if (S_ISREG(st.st_mode)) {
      usage->bytes += st.st_size;
      if (charge > usage->largest) usage->largest = charge;
    } else if (S_ISDIR(st.st_mode)) {
      if (depth + 1 >= kMaxDepth) {
        usage->too_deep = 1;
        continue;
      }
      int sub = OpenDir(dirfd(d), e->d_name);
      if (sub < 0) {
        if (errno != ENOENT) usage->unreadable = 1;
        continue;
      }
      Walk(sub, depth + 1, stop, usage, visit, ctx);
      if (stop > 0 && usage->entries > stop) break;
    }
  }
  if (e == NULL && errno != 0) usage->unreadable = 1;
  closedir(d);
}

long long OutputCharge(long long size, long long blocks_512, int is_regular, long long block) {
  long long allocated = blocks_512 * 512;
  if (!is_regular) return allocated;
  long long rounded = block > 0 ? (size + block - 1) / block * block : size;
  return rounded > allocated ? rounded : allocated;
}

int OutputCheckMount(const OutputBounds* b) {
  if (b->any_mount) return 0;
  struct statvfs vfs;
  if (statvfs(b->dir, &vfs) != 0) return -1;
  const unsigned long want = ST_NOSUID | ST_NODEV;
  if ((vfs.f_flag & want) == want) return 0;
  errno = 0;
  return -1;
}

static int OpenRoot(const OutputBounds* b) {
  return open(b->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

void OutputMeasure(const OutputBounds* b, OutputUsage* usage) {
  memset(usage, 0, sizeof(*usage));
  int fd = OpenRoot(b);
  if (fd < 0) {
    usage->unreadable = 1;
    return;
  }
  struct statvfs vfs;
  usage->block = fstatvfs(fd, &vfs) == 0 && vfs.f_frsize > 0 ? (long long)vfs.f_frsize : 512;
  Walk(fd, 0, b->max_entries, usage, NULL, NULL);
}

const char* OutputViolation(const OutputBounds* b, const OutputUsage* u) {
  if (b->max_file_bytes > 0 && u->largest > b->max_file_bytes) return "file_too_large";
  if (b->max_bytes > 0 && u->used > b->max_bytes) return "too_large";
  if (b->max_entries > 0 && u->entries > b->max_entries) return "too_many_files";
  if (u->too_deep) return "too_deep";
  if (u->unreadable) return "unreadable";
  return NULL;
}

static void Remember(void* ctx, const struct stat* st) {
  (void)ctx;
  if (g_known_len == g_known_cap) {
    size_t cap = g_known_cap ? g_known_cap * 2 : 256;
    Known* k = realloc(g_known, cap * sizeof(Known));
    if (k == NULL) {
      g_snapshot_ok = 0;
      return;
    }
    g_known = k;
    g_known_cap = cap;
  }
  g_known[g_known_len].dev = st->st_dev;
  g_known[g_known_len].ino = st->st_ino;
  g_known[g_known_len].size = st->st_size;
  g_known[g_known_len].blocks = st->st_blocks;
  g_known_len++;
}

static int CompareKnown(const void* a, const void* b) {
  const Known* x = a;
  const Known* y = b;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
  return 0;
}

int OutputSnapshot(const OutputBounds* b) {
  g_known_len = 0;
  g_snapshot_ok = 1;
  OutputUsage usage;
  memset(&usage, 0, sizeof(usage));
  int fd = OpenRoot(b);
  if (fd < 0) {
    g_snapshot_ok = 0;
    return -1;
  }
  Walk(fd, 0, b->max_entries, &usage, Remember, NULL);
  if ((b->max_entries > 0 && usage.entries > b->max_entries) || usage.unreadable) {
    g_snapshot_ok = 0;
  }
  if (g_snapshot_ok) qsort(g_known, g_known_len, sizeof(Known), CompareKnown);
  return g_snapshot_ok ? 0 : -1;
}

static const Known* Lookup(const struct stat* st) {
  Known key = {st->st_dev, st->st_ino, 0, 0};
  return bsearch(&key, g_known, g_known_len, sizeof(Known), CompareKnown);
}

// A directory stream on `fd` (taken over) that entries can be removed from.
// The job may have left the directory without write permission; it is the
// job's own and every job process is dead, so the fd is what it names.
// NULL (fd closed) on failure.
static DIR* WritableStream(int fd) {
  if (fchmod(fd, 0700) != 0) { /* the unlinks that follow report any failure */
  }
  DIR* d = fdopendir(fd);
  if (d == NULL) close(fd);
  return d;
}

// Removes entry `name` of `dir` and, for a directory, everything below it.
static int RemoveEntry(int dir, const char* name, int depth) {
  struct stat st;
  if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlinkat(dir, name, 0) == 0 || errno == ENOENT ? 0 : -1;
  if (depth >= kMaxDepth + 2) return -1;
  int fd = OpenDir(dir, name);
  DIR* d = fd < 0 ? NULL : WritableStream(fd);
  if (d == NULL) return -1;
  int rc = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (IsDots(e->d_name)) continue;
    if (RemoveEntry(dirfd(d), e->d_name, depth + 1) != 0) rc = -1;
  }
  closedir(d);
  if (unlinkat(dir, name, AT_REMOVEDIR) != 0 && errno != ENOENT) rc = -1;
  return rc;
}

// Truncates regular file `name` in `dir` to `size`. Truncating, even to
// the size it has, also frees the blocks preallocated past its end
// (fallocate KEEP_SIZE). A file the job made read-only is its own: it gets
// u+rw back. O_NONBLOCK: never wait on anything that is not a file after all.
static int CutBack(int dir, const char* name, off_t size) {
  const int flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  int f = openat(dir, name, flags);
  if (f < 0 && errno == EACCES && fchmodat(dir, name, 0600, 0) == 0) f = openat(dir, name, flags);
  if (f < 0) return -1;
  struct stat now;
  int rc = fstat(f, &now) == 0 && S_ISREG(now.st_mode) && ftruncate(f, size) == 0 ? 0 : -1;
  close(f);
  return rc;
}

// Undoes the run's growth below directory `fd` (closed here).
static int Undo(int fd, int depth) {
  DIR* d = WritableStream(fd);
  if (d == NULL) return -1;
  int rc = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (IsDots(e->d_name)) continue;
    struct stat st;
    if (StatEntry(dirfd(d), e->d_name, &st) != 0) {
      if (errno != ENOENT) rc = -1;  // Not undone: never taken for absent.
      continue;
    }
    const Known* k = Lookup(&st);
    if (k == NULL) {
      if (RemoveEntry(dirfd(d), e->d_name, depth + 1) != 0) rc = -1;
    } else if (S_ISDIR(st.st_mode)) {
      int sub = depth + 1 < kMaxDepth + 2 ? OpenDir(dirfd(d), e->d_name) : -1;
      if (sub < 0 || Undo(sub, depth + 1) != 0) rc = -1;
    } else if (S_ISREG(st.st_mode) && (st.st_size > k->size || st.st_blocks > k->blocks)) {
      if (CutBack(dirfd(d), e->d_name, st.st_size < k->size ? st.st_size : k->size) != 0) rc = -1;
    }
  }
  closedir(d);
  return rc;
}

int OutputRollback(const OutputBounds* b) {
  if (!g_snapshot_ok) return -1;
  int fd = OpenRoot(b);
  if (fd < 0) return -1;
  return Undo(fd, 0);
}
