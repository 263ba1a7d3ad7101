// Opening the job store that store.* names: the SQLite file under data_dir,
// or a PostgreSQL server that a fleet of nodes shares. Private to
// src/service.
#ifndef CODERUNNER_SRC_SERVICE_STORE_OPENING_H_
#define CODERUNNER_SRC_SERVICE_STORE_OPENING_H_

#include <functional>
#include <memory>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/store/job_notices.h"
#include "coderunner/store/store_parts.h"

namespace coderunner::service {

// Reason of the error when store.password_env names an unset variable.
inline constexpr const char* kReasonStorePasswordUnset = "store_password_unset";
// Reason of the error when store.kind is postgres in a build without the
// fleet (CODERUNNER_FLEET=OFF).
inline constexpr const char* kReasonFleetNotBuilt = "fleet_not_built";

// Reads an environment variable: its value, or nullptr when unset (as
// std::getenv, the default).
using EnvLookup = std::function<const char*(const char* name)>;

// Opens the store of `cfg.store`, redacting stored requests with
// jobs::RedactStoredRequest, and returns its parts (store_parts.h: which
// parts each backend has). sqlite: <data_dir>/jobs.db
// (SqliteJobStore::Open's errors as they are). postgres: the password is
// `env`(store.password_env) ("" when password_env is ""); an unset
// variable is FailedPrecondition ("store_password_unset") naming
// store.password_env. Then PgJobStore::Open; its
// failures keep code and reason, with a message that starts with
// "store.url: " and never holds the password. Blocks up to about two
// store.connect_timeout_ms while the server is unreachable. In a build
// without the fleet, postgres is FailedPrecondition ("fleet_not_built").
// The caller owns the store (parts.jobs). Thread-compatible: `env` is
// called on this thread only.
StatusOr<store::StoreParts> OpenConfiguredStore(const config::Config& cfg, const EnvLookup& env);

// The wake-ups of a fleet (store.kind postgres): PgJobNotices on the
// database of store.url, with the password read as OpenConfiguredStore
// reads it, and the same errors. nullptr (not an error) for sqlite: one
// node wakes its own waiters. The caller owns it and starts it. Without
// the fleet, postgres is FailedPrecondition ("fleet_not_built").
StatusOr<std::unique_ptr<store::JobNotices>> OpenConfiguredNotices(const config::Config& cfg,
                                                                   const EnvLookup& env);

}  // namespace coderunner::service

#endif  // CODERUNNER_SRC_SERVICE_STORE_OPENING_H_
