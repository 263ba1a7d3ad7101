// Fuzzes coderunner-init's command-line parser (ParseInitOptions in
// src/init/init_options.c, compiled here with the sanitizers; the init
// binary itself is static and never sanitized). The service builds that
// command line, but part of it (the job's arguments, environment values)
// comes from the request. The input is split at NUL bytes into argv.
// Checks: a parsed command is non-empty and lies inside argv, the
// environment holds only -e values and is NULL-terminated, and numbers are
// never negative.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "init/init_options.h"

enum { kMaxArgv = 256 };

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static char* argv[kMaxArgv + 1];
  char* copy = malloc(size + 1);
  if (copy == NULL) return 0;
  memcpy(copy, data, size);
  copy[size] = '\0';
  int argc = 0;
  argv[argc++] = "coderunner-init";
  for (char* p = copy; p < copy + size && argc < kMaxArgv; p += strlen(p) + 1) argv[argc++] = p;
  argv[argc] = NULL;
  InitOptions o;
  if (ParseInitOptions(argc, argv, &o) == 0) {
    if (o.command < argv + 1 || o.command >= argv + argc || o.command[0] == NULL) __builtin_trap();
    int nenv = 0;
    while (o.envp[nenv] != NULL) ++nenv;
    if (nenv > kMaxEnv) __builtin_trap();
    if (o.cpu_limit_ms < 0 || o.out.max_bytes < 0 || o.out.max_file_bytes < 0 ||
        o.out.max_entries < 0) {
      __builtin_trap();
    }
  }
  free(copy);
  return 0;
}
