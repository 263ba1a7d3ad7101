// How this node dispatches its jobs (coderunner/jobs/job_dispatch.h),
// chosen at the composition root and nowhere else. Two implementations of
// these functions, one linked: fleet_wiring.cc when the fleet is built
// (CODERUNNER_FLEET), single_node_wiring.cc when it is not. Private to
// src/service.
#ifndef CODERUNNER_SRC_SERVICE_DISPATCH_WIRING_H_
#define CODERUNNER_SRC_SERVICE_DISPATCH_WIRING_H_

#include "coderunner/common/status.h"
#include "components.h"

namespace coderunner::service {

// Fills c.dispatch from the store, queue, hub, metrics, engine clients,
// warm pool and notices built before: with store.kind postgres a node of a
// fleet, whose c.on_notice and c.on_resync take the fleet's notices; else
// one node (c.dispatch stays null: the JobService keeps its own).
Status BuildDispatch(Components& c);

}  // namespace coderunner::service

#endif  // CODERUNNER_SRC_SERVICE_DISPATCH_WIRING_H_
