// Fuzzes coderunner-init's check of the masked and read-only paths
// (CheckProcMasks in src/init/proc_masks.c, compiled here with the
// sanitizers): the colon-separated lists come from init's environment,
// which the service sets. The input is split at the first NUL into the
// masked and the read-only list. The checks only look (lstat, opendir,
// statvfs). Checks: a path reported as failing is one of the list's
// entries, cut to the parser's bound.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "init/proc_masks.h"

// Whether `bad` is a (possibly cut) entry of the colon-separated `list`.
static int IsEntry(const char* list, const char* bad) {
  size_t n = strlen(bad);
  for (const char* p = list; p != NULL && *p != '\0';) {
    const char* end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len >= n && n > 0 && strncmp(p, bad, n) == 0) return 1;
    p = end ? end + 1 : NULL;
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char* masked = malloc(size + 2);
  if (masked == NULL) return 0;
  memcpy(masked, data, size);
  masked[size] = '\0';
  masked[size + 1] = '\0';
  char* readonly = masked + strlen(masked) + 1;
  const char* bad = CheckProcMasks(masked, readonly);
  if (bad != NULL && !IsEntry(masked, bad) && !IsEntry(readonly, bad)) __builtin_trap();
  free(masked);
  return 0;
}
