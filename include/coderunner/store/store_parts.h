// StoreParts: an opened job store as the set of interfaces it implements.
//
// A backend implements JobStore and some of the other store interfaces on
// one object over one database. Opening it (PartsOf in
// sqlite/sqlite_job_store.h and postgres/pg_job_store.h) hands the caller
// that object as a JobStore to own, and each other part it keeps as a
// pointer into the same object: callers take the part they need and never
// cast. What each backend keeps:
//
//   part             SQLite (one node)   PostgreSQL (a fleet)
//   jobs             yes                 yes
//   nodes            yes                 yes
//   outbox           yes                 yes
//   bounded          -                   yes
//   rate_buckets     -                   yes
//   sandbox_owners   -                   yes
#ifndef CODERUNNER_STORE_STORE_PARTS_H_
#define CODERUNNER_STORE_STORE_PARTS_H_

#include <memory>

#include "coderunner/store/job_store.h"
#include "coderunner/store/node_registry.h"
#include "coderunner/store/queue_bounds.h"
#include "coderunner/store/rate_buckets.h"
#include "coderunner/store/sandbox_owners.h"
#include "coderunner/store/webhook_outbox.h"

namespace coderunner::store {

// Movable; the part pointers stay valid while `jobs` holds the store (a
// move keeps them, resetting `jobs` leaves them dangling). Each pointee is
// thread-safe as its interface says.
struct StoreParts {
  // The store; it owns the object every other part points into.
  std::unique_ptr<JobStore> jobs;
  // The fleet's node registry (table nodes); both backends.
  NodeRegistry* nodes = nullptr;
  // The webhook deliveries owed (table webhook_outbox); both backends.
  WebhookOutbox* outbox = nullptr;
  // Queue bounds counted over every node; null where the store has one
  // node (SQLite: the node's own queue bounds it).
  BoundedQueue* bounded = nullptr;
  // requests_per_minute buckets shared by every node; null where the store
  // has one node (SQLite: the node keeps its own buckets).
  RateBuckets* rate_buckets = nullptr;
  // Which node holds each sandbox; null where the store has one node
  // (SQLite: every sandbox is on it).
  SandboxOwners* sandbox_owners = nullptr;
};

}  // namespace coderunner::store

#endif  // CODERUNNER_STORE_STORE_PARTS_H_
