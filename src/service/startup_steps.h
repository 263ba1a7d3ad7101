// The service's startup, as a list of named steps (step_list.h) that fill
// in Components one after the other.
#ifndef CODERUNNER_SERVICE_STARTUP_STEPS_H_
#define CODERUNNER_SERVICE_STARTUP_STEPS_H_

#include "components.h"
#include "step_list.h"

namespace coderunner::service {

// Names of the startup steps, in the order they run.
inline constexpr char kStepEngineSocket[] = "engine socket";
inline constexpr char kStepInitBinary[] = "init binary";
inline constexpr char kStepDirectories[] = "directories";
inline constexpr char kStepNosuidMounts[] = "nosuid mounts";
inline constexpr char kStepEngineClients[] = "engine clients";
inline constexpr char kStepEngineProbe[] = "engine probe";
inline constexpr char kStepJobStore[] = "job store";
inline constexpr char kStepWebhooks[] = "webhooks";
inline constexpr char kStepJobs[] = "jobs";
inline constexpr char kStepExecuteMode[] = "execute mode";
inline constexpr char kStepRecoverJobs[] = "recover jobs";
inline constexpr char kStepWarmPool[] = "warm pool";
inline constexpr char kStepSandboxes[] = "sandboxes";
inline constexpr char kStepAuth[] = "auth";
inline constexpr char kStepListen[] = "listen";
inline constexpr char kStepNodeRegistry[] = "node registry";

// The steps that build `c` from c.cfg, from resolving the engine socket to
// binding the listener and registering the node (see the names above). `c` must outlive the list;
// run it once. Steps may log (spdlog), create directories, bind-mount
// artifacts.dir and volumes.dir onto themselves nosuid,nodev, start the
// job workers, the warm pool and the sandboxes, bind the listen port, and
// start this node's heartbeat into the node registry.
StepList StartupSteps(Components& c);

}  // namespace coderunner::service

#endif  // CODERUNNER_SERVICE_STARTUP_STEPS_H_
