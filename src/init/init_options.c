// See init_options.h.
#define _GNU_SOURCE
#include "init_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long ParseCount(const char* s) {
  char* end = NULL;
  long long v = strtoll(s, &end, 10);
  return (end == s || *end != '\0' || v < 0) ? -1 : v;
}

int ParseInitOptions(int argc, char** argv, InitOptions* o) {
  memset(o, 0, sizeof(*o));
  int nenv = 0;
  int i = 1;
  for (; i < argc; ++i) {
    const char* a = argv[i];
    int has_value = i + 1 < argc;
    if (strcmp(a, "--") == 0) {
      ++i;
      break;
    } else if (strcmp(a, "-i") == 0 && has_value) {
      o->stdin_path = argv[++i];
    } else if (strcmp(a, "-W") == 0 && has_value) {
      o->go_fifo = argv[++i];
    } else if (strcmp(a, "-c") == 0 && has_value && ParseCount(argv[i + 1]) >= 0) {
      o->cpu_limit_ms = ParseCount(argv[++i]);
    } else if (strcmp(a, "-p") == 0 && has_value && ParseCount(argv[i + 1]) > 0 &&
               ParseCount(argv[i + 1]) <= 65535) {
      o->egress_port = (int)ParseCount(argv[++i]);
    } else if (strcmp(a, "-e") == 0 && has_value && nenv < kMaxEnv) {
      o->envp[nenv++] = argv[++i];
    } else if (strcmp(a, "-t") == 0 && has_value && o->nscratch < kMaxScratch) {
      o->scratch[o->nscratch++] = argv[++i];
    } else if (strcmp(a, "-o") == 0 && has_value) {
      o->out.dir = argv[++i];
    } else if ((strcmp(a, "-q") == 0 || strcmp(a, "-f") == 0 || strcmp(a, "-n") == 0) &&
               has_value && ParseCount(argv[i + 1]) >= 0) {
      long long v = ParseCount(argv[++i]);
      if (a[1] == 'q') o->out.max_bytes = v;
      if (a[1] == 'f') o->out.max_file_bytes = v;
      if (a[1] == 'n') o->out.max_entries = v;
    } else if (strcmp(a, "-r") == 0) {
      o->out.rollback = 1;
    } else if (strcmp(a, "-m") == 0) {
      o->out.any_mount = 1;
    } else if (strcmp(a, "-P") == 0 && has_value && ParseCount(argv[i + 1]) > 0 &&
               ParseCount(argv[i + 1]) < argc) {
      o->prestart_words = (int)ParseCount(argv[++i]);
    } else if (strcmp(a, "-x") == 0) {
      o->exec_in_place = 1;
    } else {
      dprintf(2,
              "coderunner-init: usage: [-i FILE | -W FIFO [-t DIR]... [-P N]] [-c CPU_MS] [-p "
              "PORT] [-e "
              "K=V]... "
              "[-o DIR [-q N] [-f N] [-n N] [-r] [-m]] -- CMD [ARG]...\n"
              "       coderunner-init -x -- CMD [ARG]...\n");
      return -1;
    }
  }
  o->envp[nenv] = NULL;
  if (o->exec_in_place &&
      (nenv > 0 || o->stdin_path != NULL || o->go_fifo != NULL || o->nscratch > 0 ||
       o->out.dir != NULL || o->cpu_limit_ms > 0 || o->egress_port > 0 || o->prestart_words > 0)) {
    dprintf(2, "coderunner-init: -x takes no other option\n");
    return -1;
  }
  if (i >= argc) {
    dprintf(2, "coderunner-init: no command\n");
    return -1;
  }
  o->command = argv + i;
  if (o->prestart_words > 0 && (o->go_fifo == NULL || o->prestart_words >= argc - i)) {
    dprintf(2, "coderunner-init: -P needs -W and a job's command after its words\n");
    return -1;
  }
  return 0;
}
