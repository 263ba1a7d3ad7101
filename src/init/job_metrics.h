// job_metrics: what coderunner-init reads about the job it ran: CPU time
// (for the gVisor CPU watchdog and the trailer), peak memory and OOM kills,
// from the container's own cgroup (v2 first, then the v1 layouts Docker
// and Podman mount) and from /proc. Not thread-safe (init is
// single-threaded).
#ifndef CODERUNNER_INIT_JOB_METRICS_H_
#define CODERUNNER_INIT_JOB_METRICS_H_

typedef struct {
  long long cpu_us;     // CPU time of the whole container; rusage if no cgroup.
  long long mem_peak;   // Peak memory, bytes; max RSS if no cgroup.
  long long oom_kills;  // OOM kills in the container's cgroup; -1 if unknown.
} JobMetrics;

// CPU time of the whole job so far, in us: every process still in the PID
// namespace but PID 1 (its own time and that of the children it reaped,
// from /proc/PID/stat) plus everything the caller has reaped. A process
// that exited but is not reaped yet is briefly missed, which only errs
// lenient.
long long JobCpuUs(void);

// Reads the final metrics after every job process has been reaped.
void ReadJobMetrics(JobMetrics* out);

// Turns `m`, the container's metrics after a case of a series, into the
// case's own: CPU time and OOM kills since `base` (the metrics when the
// case began), and as its peak memory `max_rss_bytes`, the largest
// resident set of any of its processes (the cgroup's peak never comes
// down, so it would report an earlier case's).
void CaseShareOf(const JobMetrics* base, long long max_rss_bytes, JobMetrics* m);

#endif  // CODERUNNER_INIT_JOB_METRICS_H_
