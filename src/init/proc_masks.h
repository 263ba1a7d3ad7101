// proc_masks: coderunner-init's own check, inside the container, that the
// engine masked and write-protected the kernel interfaces it was asked to.
//
// The service asks the engine for MaskedPaths and ReadonlyPaths, but an
// engine may report nothing about them (Podman's compat inspect says null)
// or drop them silently. init therefore checks them itself before the job
// exists and refuses to run it if one does not hold: what is checked is not
// assumed. Pure apart from the file system reads; not thread-safe.
#ifndef CODERUNNER_INIT_PROC_MASKS_H_
#define CODERUNNER_INIT_PROC_MASKS_H_

// `masked` and `readonly` are colon-separated absolute paths (either may be
// NULL or empty). A masked path must be absent, unreachable, /dev/null (the
// engines bind it over files) or an empty directory (they mount an empty
// tmpfs over directories). A read-only path must be absent or on a
// read-only mount. Returns NULL when all hold, else the first path that
// does not (in a static buffer, valid until the next call).
const char* CheckProcMasks(const char* masked, const char* readonly);

#endif  // CODERUNNER_INIT_PROC_MASKS_H_
