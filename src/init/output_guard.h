// output_guard: how coderunner-init polices the job's writable output
// directory (/output): a per-job artifact directory or a persistent volume.
//
// Everything here works on directory file descriptors with openat() and
// fstatat(AT_SYMLINK_NOFOLLOW), so nothing the job plants (a symlink to
// /etc, a FIFO, a device name) is ever followed, opened for reading or
// waited on. Not thread-safe (coderunner-init is single-threaded).
//
// Bytes are counted as the disk holds them: an entry's charge is its
// allocated blocks (st_blocks * 512), and for a regular file the larger of
// that and its size rounded up to the file system's block size (statvfs
// f_frsize). So a file preallocated past its end (fallocate KEEP_SIZE: size
// 0, gigabytes on disk), a sparse file (a huge size, few blocks), many
// one-byte files (a block each, even where st_blocks understates it, as
// gVisor's ceil(size / 512) does) and directories bloated by entries since
// removed all count for what they can cost.
#ifndef CODERUNNER_INIT_OUTPUT_GUARD_H_
#define CODERUNNER_INIT_OUTPUT_GUARD_H_

#include <sys/types.h>

// Bounds on the output directory. 0 means unbounded.
typedef struct {
  const char* dir;           // NULL: no output directory to police.
  long long max_bytes;       // Sum of the charges of every entry, bytes.
  long long max_file_bytes;  // Charge of any one regular file, bytes.
  long long max_entries;     // Files, directories and other entries together.
  int rollback;              // Volume mode: undo the growth of a run that broke a bound.
  int any_mount;             // Do not require a nosuid,nodev mount (a runtime that cannot show it).
} OutputBounds;

// What one walk found (the root itself not included).
typedef struct {
  long long bytes;    // Sum of regular file sizes (st_size), as listed.
  long long used;     // Sum of every entry's charge: what max_bytes bounds.
  long long entries;  // Every entry below the root.
  long long largest;  // Largest charge of one regular file: what max_file_bytes bounds.
  long long block;    // The file system's block size (f_frsize), bytes; 512 if unknown.
  int unreadable;     // A directory could not be opened (not even after chmod u+rwx).
  int too_deep;       // Directories nested deeper than 64 levels.
} OutputUsage;

// What an entry with this size, allocation and type costs, bytes: its
// allocated bytes (blocks_512 * 512), and for a regular file at least its
// size rounded up to `block` bytes (ignored if <= 0). Pure.
long long OutputCharge(long long size, long long blocks_512, int is_regular, long long block);

// 0 if bounds->dir is on a mount that is nosuid and nodev (statvfs), or
// bounds->any_mount is set; -1 otherwise (errno as statvfs left it, or 0).
int OutputCheckMount(const OutputBounds* bounds);

// Records the tree as it is before the job runs (volume mode), so that
// OutputRollback knows what the run added. Returns 0, or -1 if the tree
// holds more entries than bounds->max_entries (then rollback is disabled).
int OutputSnapshot(const OutputBounds* bounds);

// Walks the output directory. Stops counting once max_entries is passed.
void OutputMeasure(const OutputBounds* bounds, OutputUsage* usage);

// The bound `usage` breaks: "file_too_large", "too_large", "too_many_files",
// "unreadable" or "too_deep"; NULL when within every bound.
const char* OutputViolation(const OutputBounds* bounds, const OutputUsage* usage);

// Volume mode, after every job process is dead: removes every entry that
// did not exist at OutputSnapshot and truncates files that grew (in size or
// in allocated blocks) back to their earlier size, which also frees what
// was preallocated past their end. Returns 0 on success, -1 if something
// could not be undone or there was no snapshot.
int OutputRollback(const OutputBounds* bounds);

#endif  // CODERUNNER_INIT_OUTPUT_GUARD_H_
