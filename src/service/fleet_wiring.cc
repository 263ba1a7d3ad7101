// BuildDispatch with the fleet built (CODERUNNER_FLEET on).
#include <memory>

#include "coderunner/fleet/fleet_dispatch.h"
#include "dispatch_wiring.h"

namespace coderunner::service {

Status BuildDispatch(Components& c) {
  // A fleet shares the PostgreSQL store: jobs are claimed from it.
  if (c.cfg.store.kind != "postgres") return OkStatus();
  fleet::FleetDispatchDeps d;
  d.config = &c.cfg;
  d.store = c.store.jobs.get();
  d.bounded = c.store.bounded;
  d.queue = c.queue.get();
  d.hub = c.hub.get();
  d.metrics = c.metrics.get();
  d.containers = c.containers.get();
  d.pool = c.cfg.pool.enabled && !c.native() ? c.pool.get() : nullptr;
  d.notices = c.notices.get();
  std::unique_ptr<fleet::FleetDispatch> node = fleet::NewFleetDispatch(d);
  // Other nodes' queued jobs, status changes and cancels reach this node's
  // claim loop, waiters and running jobs.
  fleet::FleetDispatch* listener = node.get();
  c.on_notice = [listener](const store::JobNotice& n) { listener->OnNotice(n); };
  c.on_resync = [listener] { listener->OnResync(); };
  c.dispatch = std::move(node);
  return OkStatus();
}

}  // namespace coderunner::service
