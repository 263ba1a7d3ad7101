// Maps an engine HTTP answer to a Status, keeping the engine's own message.
#ifndef CODERUNNER_ENGINE_ENGINE_ERROR_H_
#define CODERUNNER_ENGINE_ENGINE_ERROR_H_

#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/engine/transport.h"

namespace coderunner::engine {

// Returns OK for 2xx. Otherwise a Status whose message is
// "<operation>: <engine message> (HTTP <code>)". 400 -> InvalidArgument,
// 404 -> NotFound, 409 -> `conflict` (AlreadyExists for creates,
// FailedPrecondition elsewhere), 5xx and anything else -> Unavailable for 502/503/504
// and Internal otherwise. The reason is "engine_<snake code>", e.g. "engine_not_found".
Status StatusFromEngine(const HttpResponse& response, std::string_view operation,
                        StatusCode conflict = StatusCode::kFailedPrecondition);

// Extracts "message" (Docker and Podman both set it) from an engine error
// body, falling back to the raw body truncated to 512 bytes.
std::string EngineMessage(std::string_view body);

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_ENGINE_ERROR_H_
