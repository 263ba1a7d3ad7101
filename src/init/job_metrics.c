// See job_metrics.h.
#define _GNU_SOURCE
#include "job_metrics.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

// Reads the first integer in `path`; -1 if unreadable.
static long long ReadNumber(const char* path) {
  FILE* f = fopen(path, "re");
  if (f == NULL) return -1;
  long long v = -1;
  if (fscanf(f, "%lld", &v) != 1) v = -1;
  fclose(f);
  return v;
}

// Reads "key N" from a flat-keyed cgroup file; -1 if absent.
static long long ReadKeyed(const char* path, const char* key) {
  FILE* f = fopen(path, "re");
  if (f == NULL) return -1;
  char name[128];
  long long v;
  long long found = -1;
  while (fscanf(f, "%127s %lld", name, &v) == 2) {
    if (strcmp(name, key) == 0) {
      found = v;
      break;
    }
  }
  fclose(f);
  return found;
}

static long long FirstOf(long long a, long long b) { return a >= 0 ? a : b; }

static long long ReapedCpuUs(struct rusage* ru) {
  memset(ru, 0, sizeof(*ru));
  getrusage(RUSAGE_CHILDREN, ru);
  return (long long)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000LL + ru->ru_utime.tv_usec +
         ru->ru_stime.tv_usec;
}

// utime + stime + cutime + cstime of one /proc/PID/stat, in ticks; 0 if
// unreadable.
static long long ProcessTicks(const char* pid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/%.20s/stat", pid);
  FILE* f = fopen(path, "re");
  if (f == NULL) return 0;
  char line[1024];
  size_t n = fread(line, 1, sizeof(line) - 1, f);
  fclose(f);
  line[n] = '\0';
  // Fields after "(comm)": state, then ... utime stime cutime cstime are
  // fields 14-17 of the whole line, i.e. the 12th-15th after the ')'.
  char* p = strrchr(line, ')');
  if (p == NULL) return 0;
  long long v[15];
  int got =
      sscanf(p + 1, " %*c %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld",
             &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11],
             &v[12], &v[13]);
  return got == 14 ? v[10] + v[11] + v[12] + v[13] : 0;
}

long long JobCpuUs(void) {
  struct rusage ru;
  long long us = ReapedCpuUs(&ru);
  long ticks_per_s = sysconf(_SC_CLK_TCK);
  if (ticks_per_s <= 0) ticks_per_s = 100;
  DIR* proc = opendir("/proc");
  if (proc == NULL) return us;
  long long ticks = 0;
  struct dirent* e;
  while ((e = readdir(proc)) != NULL) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9' || strcmp(e->d_name, "1") == 0) continue;
    ticks += ProcessTicks(e->d_name);
  }
  closedir(proc);
  return us + ticks * (1000000LL / ticks_per_s);
}

void ReadJobMetrics(JobMetrics* out) {
  struct rusage ru;
  long long rusage_cpu_us = ReapedCpuUs(&ru);
  out->cpu_us = ReadKeyed("/sys/fs/cgroup/cpu.stat", "usage_usec");
  if (out->cpu_us < 0) {
    long long ns = FirstOf(ReadNumber("/sys/fs/cgroup/cpuacct/cpuacct.usage"),
                           ReadNumber("/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage"));
    out->cpu_us = ns >= 0 ? ns / 1000 : rusage_cpu_us;
  }
  out->mem_peak = FirstOf(ReadNumber("/sys/fs/cgroup/memory.peak"),
                          ReadNumber("/sys/fs/cgroup/memory/memory.max_usage_in_bytes"));
  if (out->mem_peak < 0) out->mem_peak = (long long)ru.ru_maxrss * 1024LL;
  out->oom_kills = FirstOf(ReadKeyed("/sys/fs/cgroup/memory.events", "oom_kill"),
                           ReadKeyed("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"));
}

void CaseShareOf(const JobMetrics* base, long long max_rss_bytes, JobMetrics* m) {
  if (m->cpu_us >= 0 && base->cpu_us >= 0) m->cpu_us -= base->cpu_us;
  if (m->oom_kills >= 0 && base->oom_kills >= 0) m->oom_kills -= base->oom_kills;
  m->mem_peak = max_rss_bytes;
}
