// A container's run that lost its engine midway: how to tell, and what its
// result then says. The waiting itself is ContainerRunner's
// (AwaitEndAfterEngineLoss, engine_loss.cc).
#ifndef CODERUNNER_ISOLATION_ENGINE_LOSS_H_
#define CODERUNNER_ISOLATION_ENGINE_LOSS_H_

#include "coderunner/common/status.h"
#include "coderunner/isolation/job_spec.h"

namespace coderunner::isolation {

// True when `stream` (how the attach call ended) or `inspected` (the
// inspect after it) says the engine could not be reached. Pure.
bool EngineLost(const Status& stream, const Status& inspected);

// True when the start call failed to reach the engine (`start_failure`, a
// transport error, not an engine's answer): the engine may have started the
// container all the same, and only lost the way back. Pure.
bool StartOutcomeUnknown(const Status& start_failure);

// Marks `result`, built from the container's state after the engine
// returned, for what the loss hid: without init's trailer the output after
// the loss never arrived (output_lost), and a signal that ended the
// container may have been the engine's own on its way down or back, so
// such a run is an engine_unavailable error rather than the program's
// failure. Pure.
void NoteEngineLoss(RunResult& result);

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_ENGINE_LOSS_H_
