// output_guard: how coderunner-init polices the job's writable output
// directory (/output): a per-job artifact directory or a persistent volume.
//
// Everything here works on directory file descriptors with openat() and
// fstatat(AT_SYMLINK_NOFOLLOW), so nothing the job plants (a symlink to
// /etc, a FIFO, a device name) is ever followed, opened for reading or
// waited on. Not thread-safe (coderunner-init is single-threaded).
#ifndef CODERUNNER_INIT_OUTPUT_GUARD_H_
#define CODERUNNER_INIT_OUTPUT_GUARD_H_

#include <sys/types.h>

// Bounds on the output directory. 0 means unbounded.
typedef struct {
  const char* dir;           // NULL: no output directory to police.
  long long max_bytes;       // Sum of the sizes of regular files, bytes.
  long long max_file_bytes;  // Size of any one regular file, bytes.
  long long max_entries;     // Files, directories and other entries together.
  int rollback;              // Volume mode: undo the growth of a run that broke a bound.
} OutputBounds;

// What one walk found.
typedef struct {
  long long bytes;    // Sum of regular file sizes.
  long long entries;  // Every entry below the root (not the root itself).
  long long largest;  // Largest regular file.
  int unreadable;     // A directory could not be opened (not even after chmod u+rwx).
  int too_deep;       // Directories nested deeper than 64 levels.
} OutputUsage;

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
// did not exist at OutputSnapshot and truncates files that grew back to
// their earlier size. Returns 0 on success, -1 if something could not be
// undone or there was no snapshot.
int OutputRollback(const OutputBounds* bounds);

#endif  // CODERUNNER_INIT_OUTPUT_GUARD_H_
