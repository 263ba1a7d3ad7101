// proc_masks: coderunner-init's own check, inside the container, that the
// engine masked and write-protected the kernel interfaces the policy names
// (src/isolation/kernel_isolation.cc) and applied its seccomp profile.
//
// Both engines do so by default, but an engine may report nothing about it
// (Podman's compat inspect says null for both path lists; seccomp turned off
// daemon-wide shows in no container's inspect) or be configured otherwise.
// init therefore checks itself before the job exists and refuses to run it
// if one does not hold: what is checked is not assumed. Pure apart from the
// file system reads; not thread-safe.
#ifndef CODERUNNER_INIT_PROC_MASKS_H_
#define CODERUNNER_INIT_PROC_MASKS_H_

// `masked` and `readonly` are colon-separated absolute paths (either may be
// NULL or empty). A masked path must be absent, unreachable, /dev/null (the
// engines bind it over files) or an empty directory (they mount an empty
// tmpfs over directories). A read-only path must be absent or on a
// read-only mount. Returns NULL when all hold, else the first path that
// does not (in a static buffer, valid until the next call).
const char* CheckProcMasks(const char* masked, const char* readonly);

// 1 when the calling process already runs under a seccomp filter (the
// engine's profile: /proc/self/status says "Seccomp: 2"), else 0.
int RunsUnderSeccompFilter(void);

#endif  // CODERUNNER_INIT_PROC_MASKS_H_
